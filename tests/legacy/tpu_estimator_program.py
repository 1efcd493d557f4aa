"""A TPUEstimator program in the shape of BERT's and ALBERT's run_*.py, for tests/test_tpu_estimator.py: both
the input of `migrate rewrite` (which wraps the model_fn as TPUEstimator ran it with use_tpu=False:
compat/tpu_estimators.py) and, unchanged, the legacy reference run on CPU.

Flags choose TPU or not (`--use_tpu`, off by default, as in those programs); a `model_fn_builder` closes over
the hyperparameters; the input_fn reads its batch size from `params["batch_size"]`; the model_fn returns a
`TPUEstimatorSpec` with `eval_metrics=(metric_fn, [...])` and, on TPU only, a `scaffold_fn`; the learning rate
warms up linearly, then decays polynomially with the global step. The TPU RunConfig saves every 10 steps.
With --results, the estimator is evaluated on all of digits and predicts its first 20 examples (JSON).
"""

import argparse
import json

import numpy as np
import tensorflow.compat.v1 as tf
from sklearn.datasets import load_digits
from tensorflow.compat.v1 import estimator as tf_estimator


def input_fn_builder(is_training, limit=None):
    def input_fn(params):
        digits = load_digits()
        x, y = (digits.data / 16.0).astype(np.float32), digits.target.astype(np.int32)
        if limit:
            x, y = x[:limit], y[:limit]
        dataset = tf.data.Dataset.from_tensor_slices({"pixels": x, "label_ids": y})
        if is_training:
            dataset = dataset.repeat()
        return dataset.batch(params["batch_size"], drop_remainder=is_training)

    return input_fn


def model_fn_builder(hidden_size, learning_rate, num_train_steps, num_warmup_steps, use_tpu):
    def model_fn(features, labels, mode, params):
        del labels, params
        with tf.variable_scope("encoder"):
            w = tf.get_variable("w", [64, hidden_size], initializer=tf.truncated_normal_initializer(stddev=0.1, seed=1))
            b = tf.get_variable("b", [hidden_size], initializer=tf.zeros_initializer())
            hidden = tf.tanh(tf.matmul(features["pixels"], w) + b)
        with tf.variable_scope("cls"):
            logits = tf.layers.dense(hidden, 10, kernel_initializer=tf.truncated_normal_initializer(stddev=0.1, seed=2))
        if mode == tf_estimator.ModeKeys.PREDICT:
            return tf_estimator.tpu.TPUEstimatorSpec(
                mode, predictions={"classes": tf.argmax(logits, -1), "logits": logits})

        label_ids = features["label_ids"]
        per_example_loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=label_ids, logits=logits)
        loss = tf.reduce_mean(per_example_loss)
        scaffold_fn = None
        if use_tpu:
            def tpu_scaffold():
                return tf.train.Scaffold()

            scaffold_fn = tpu_scaffold
        if mode == tf_estimator.ModeKeys.EVAL:
            def metric_fn(per_example_loss, label_ids, logits):
                predictions = tf.argmax(logits, axis=-1, output_type=tf.int32)
                return {"eval_accuracy": tf.metrics.accuracy(label_ids, predictions),
                        "eval_loss": tf.metrics.mean(per_example_loss)}

            return tf_estimator.tpu.TPUEstimatorSpec(
                mode, loss=loss, eval_metrics=(metric_fn, [per_example_loss, label_ids, logits]),
                scaffold_fn=scaffold_fn)

        global_step = tf.train.get_or_create_global_step()
        rate = tf.train.polynomial_decay(learning_rate, global_step, num_train_steps, end_learning_rate=0.0)
        warmup = learning_rate * tf.cast(global_step, tf.float32) / num_warmup_steps
        rate = tf.where(global_step < num_warmup_steps, warmup, rate)
        optimizer = tf.train.AdamOptimizer(rate)
        if use_tpu:
            optimizer = tf.tpu.CrossShardOptimizer(optimizer)
        train_op = optimizer.minimize(loss, global_step=global_step)
        return tf_estimator.tpu.TPUEstimatorSpec(mode, loss=loss, train_op=train_op, scaffold_fn=scaffold_fn)

    return model_fn


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--output_dir", required=True)
    parser.add_argument("--num_train_steps", type=int, default=20)
    parser.add_argument("--use_tpu", action="store_true")
    parser.add_argument("--results")
    args = parser.parse_args()

    run_config = tf_estimator.tpu.RunConfig(
        master=None,
        model_dir=args.output_dir,
        save_checkpoints_steps=10,
        tpu_config=tf_estimator.tpu.TPUConfig(
            iterations_per_loop=10, num_shards=8,
            per_host_input_for_training=tf_estimator.tpu.InputPipelineConfig.PER_HOST_V2))
    model_fn = model_fn_builder(hidden_size=32, learning_rate=0.01, num_train_steps=args.num_train_steps,
                                num_warmup_steps=5, use_tpu=args.use_tpu)
    # If TPU is not available, this will fall back to normal Estimator on CPU or GPU.
    estimator = tf_estimator.tpu.TPUEstimator(
        use_tpu=args.use_tpu, model_fn=model_fn, config=run_config,
        train_batch_size=32, eval_batch_size=50, predict_batch_size=8)
    estimator.train(input_fn=input_fn_builder(True), max_steps=args.num_train_steps)
    if args.results:
        metrics = estimator.evaluate(input_fn=input_fn_builder(False), steps=None)
        predictions = list(estimator.predict(input_fn=input_fn_builder(False, limit=20)))
        with open(args.results, "w") as out:
            json.dump({"metrics": {k: float(v) for k, v in metrics.items()},
                       "classes": [int(p["classes"]) for p in predictions],
                       "logits": [p["logits"].tolist() for p in predictions]}, out)


if __name__ == "__main__":
    main()
