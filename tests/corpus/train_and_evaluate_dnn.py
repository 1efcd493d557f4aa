"""Census-style job: DNNClassifier trained and evaluated with train_and_evaluate, exported for serving at the end."""
import numpy as np
import tensorflow as tf

NUM_FEATURES = 12


def make_input_fn(features, labels, epochs, shuffle):
    def input_fn():
        ds = tf.data.Dataset.from_tensor_slices(({"dense": features}, labels))
        if shuffle:
            ds = ds.shuffle(1000)
        return ds.repeat(epochs).batch(64)

    return input_fn


def json_serving_input_fn():
    """Serving clients send the dense features as JSON lists."""
    inputs = {"dense": tf.compat.v1.placeholder(shape=[None, NUM_FEATURES], dtype=tf.float32)}
    return tf.estimator.export.ServingInputReceiver(inputs, inputs)


def main():
    rng = np.random.RandomState(0)
    x = rng.randn(2000, NUM_FEATURES).astype(np.float32)
    y = (x.sum(axis=1) > 0).astype(np.int32)
    columns = [tf.feature_column.numeric_column("dense", shape=(NUM_FEATURES,))]
    config = tf.estimator.RunConfig(model_dir="/tmp/census", save_checkpoints_steps=500, keep_checkpoint_max=3)
    estimator = tf.estimator.DNNClassifier(hidden_units=[64, 32], feature_columns=columns, config=config)
    train_spec = tf.estimator.TrainSpec(input_fn=make_input_fn(x, y, None, True), max_steps=5000)
    exporter = tf.estimator.FinalExporter("census", json_serving_input_fn)
    eval_spec = tf.estimator.EvalSpec(
        input_fn=make_input_fn(x, y, 1, False), steps=None, throttle_secs=60, exporters=[exporter]
    )
    tf.estimator.train_and_evaluate(estimator, train_spec, eval_spec)


if __name__ == "__main__":
    main()
