"""A sequence tagger in the shape of tf_ner's Estimator (TensorFlow 1.x, tf.contrib throughout), for
tests/test_contrib_crf.py and tests/test_contrib_rnn.py (migrated only: TensorFlow 2.15 has no tf.contrib). Word
ids embedded, a dense layer (--bilstm: over a fused BiLSTM, tf.contrib.rnn.LSTMBlockFusedCell forward and a
TimeReversedFusedRNN backward) and a CRF (tf.contrib.crf). Tags are each word's id modulo 3 (--bilstm: the previous
word's, which only the forward half sees). --results: the predicted tags, the true ones, the lengths, the final
evaluation loss and the variable names, as JSON.
"""

import argparse
import json

import numpy as np
import tensorflow as tf


def model_fn(features, labels, mode, params):
    words, nwords = features["words"], features["nwords"]
    net = tf.nn.embedding_lookup(tf.get_variable("embeddings", [20, 8]), words)
    if params["bilstm"]:
        time_major = tf.transpose(net, perm=[1, 0, 2])
        lstm_cell_fw = tf.contrib.rnn.LSTMBlockFusedCell(16)
        lstm_cell_bw = tf.contrib.rnn.TimeReversedFusedRNN(tf.contrib.rnn.LSTMBlockFusedCell(16))
        output_fw, _ = lstm_cell_fw(time_major, dtype=tf.float32, sequence_length=nwords)
        output_bw, _ = lstm_cell_bw(time_major, dtype=tf.float32, sequence_length=nwords)
        net = tf.transpose(tf.concat([output_fw, output_bw], axis=-1), perm=[1, 0, 2])
    logits = tf.layers.dense(net, 3)
    crf_params = tf.get_variable("crf", [3, 3], dtype=tf.float32)
    pred_ids, _ = tf.contrib.crf.crf_decode(logits, crf_params, nwords)
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"pred_ids": pred_ids})
    log_likelihood, _ = tf.contrib.crf.crf_log_likelihood(logits, labels, nwords, crf_params)
    loss = tf.reduce_mean(-log_likelihood)
    train_op = tf.train.AdamOptimizer(params["learning_rate"]).minimize(
        loss, global_step=tf.train.get_or_create_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", required=True)
    parser.add_argument("--results", required=True)
    parser.add_argument("--bilstm", action="store_true")
    args = parser.parse_args()
    random = np.random.RandomState(0)
    words = random.randint(1, 20, size=(64, 6))
    nwords = random.randint(2, 7, size=64).astype(np.int32)
    padding = np.arange(6)[None, :] >= nwords[:, None]
    words[padding] = 0
    tags = words % 3 if not args.bilstm else np.concatenate([np.zeros((64, 1)), words[:, :-1] % 3], axis=1)
    tags = tags.astype(np.int32)
    tags[padding] = 0
    features = {"words": words, "nwords": nwords}
    params = {"bilstm": args.bilstm, "learning_rate": 0.05 if args.bilstm else 0.1}
    estimator = tf.estimator.Estimator(model_fn, model_dir=args.model_dir, params=params)
    estimator.train(lambda: tf.data.Dataset.from_tensor_slices((features, tags)).repeat().batch(16),
                    max_steps=150 if args.bilstm else 60)
    predicted = [p["pred_ids"].tolist() for p in estimator.predict(
        lambda: tf.data.Dataset.from_tensor_slices(features).batch(16))]
    loss = estimator.evaluate(lambda: tf.data.Dataset.from_tensor_slices((features, tags)).batch(64))["loss"]
    with open(args.results, "w") as out:
        json.dump({"predicted": predicted, "tags": tags.tolist(), "nwords": nwords.tolist(), "loss": float(loss),
                   "names": estimator.get_variable_names()}, out)


if __name__ == "__main__":
    main()
