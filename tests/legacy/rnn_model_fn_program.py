"""A recurrent custom model_fn as TF 1.x text models wrote it, for tests/test_rnn_model_fn.py: both the input of
`migrate rewrite` (which wraps the model_fn as written: tier 2, compat/wrapped_model_fns.py) and, unchanged, the
legacy reference run. Fixed batch order, a checkpoint every 10 steps (step 0 included).

An embedding matrix from `get_variable`, `tf.nn.embedding_lookup`, an `LSTMCell` run by `dynamic_rnn` over
variable-length sequences (`sequence_length`: the loop's variables are made inside TF1's while loop, with a caching
device), a histogram summary of the final state, RMSProp at a `piecewise_constant` rate of the global step, and
streaming accuracy and AUC in evaluation. With --results, the estimator is evaluated on all the sequences and
predicts the first 20 (written as JSON).
"""

import argparse
import json

import numpy as np
import tensorflow as tf

VOCAB, LENGTH, EXAMPLES = 40, 10, 320


def _sequences():
    rng = np.random.RandomState(0)
    words = rng.randint(1, VOCAB, size=(EXAMPLES, LENGTH)).astype(np.int32)
    lengths = rng.randint(3, LENGTH + 1, size=EXAMPLES).astype(np.int32)
    labels = (words[:, 0] > VOCAB // 2).astype(np.int32)
    return {"words": words, "length": lengths}, labels


def input_fn(mode, params):
    features, labels = _sequences()
    dataset = tf.data.Dataset.from_tensor_slices((features, labels))
    if mode == tf.estimator.ModeKeys.TRAIN:
        dataset = dataset.repeat()
    return dataset.batch(params["batch_size"])


def predict_input_fn():
    features, _ = _sequences()
    return tf.data.Dataset.from_tensor_slices({key: value[:20] for key, value in features.items()}).batch(8)


def model_fn(features, labels, mode, params):
    embeddings = tf.compat.v1.get_variable("embeddings", [VOCAB, params["dim"]],
                                           initializer=tf.compat.v1.random_uniform_initializer(-0.1, 0.1, seed=1))
    embedded = tf.nn.embedding_lookup(embeddings, features["words"])
    cell = tf.compat.v1.nn.rnn_cell.LSTMCell(params["units"], initializer=tf.compat.v1.glorot_uniform_initializer(seed=2))
    _, state = tf.compat.v1.nn.dynamic_rnn(cell, embedded, sequence_length=features["length"], dtype=tf.float32)
    tf.compat.v1.summary.histogram("final_state", state.h)
    logits = tf.compat.v1.layers.dense(state.h, 2, name="logits",
                                       kernel_initializer=tf.compat.v1.glorot_uniform_initializer(seed=3))
    classes = tf.argmax(logits, 1)
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"classes": classes, "logits": logits})

    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    if mode == tf.estimator.ModeKeys.EVAL:
        metrics = {"accuracy": tf.compat.v1.metrics.accuracy(labels, classes),
                   "auc": tf.compat.v1.metrics.auc(labels, tf.nn.softmax(logits)[:, 1])}
        return tf.estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops=metrics)

    global_step = tf.compat.v1.train.get_global_step()
    learning_rate = tf.compat.v1.train.piecewise_constant(global_step, [8, 14], [0.02, 0.01, 0.005])
    optimizer = tf.compat.v1.train.RMSPropOptimizer(learning_rate)
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=optimizer.minimize(loss, global_step=global_step))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", required=True)
    parser.add_argument("--max_steps", type=int, default=20)
    parser.add_argument("--results")
    args = parser.parse_args()

    config = tf.estimator.RunConfig(model_dir=args.model_dir, save_checkpoints_steps=10)
    params = {"dim": 8, "units": 16, "batch_size": 32}
    estimator = tf.estimator.Estimator(model_fn=model_fn, config=config, params=params)
    estimator.train(input_fn, max_steps=args.max_steps)
    if args.results:
        metrics = estimator.evaluate(input_fn)
        predictions = list(estimator.predict(predict_input_fn))
        with open(args.results, "w") as out:
            json.dump({"metrics": {k: float(v) for k, v in metrics.items()},
                       "classes": [int(p["classes"]) for p in predictions],
                       "logits": [p["logits"].tolist() for p in predictions]}, out)


if __name__ == "__main__":
    main()
