"""compat.contrib_rnn: tf.contrib.rnn's LSTMBlockFusedCell and TimeReversedFusedRNN (a BiLSTM's halves in sequence
taggers) on TensorFlow 2's BlockLSTM kernel, against the LSTM they compute written out in numpy (TensorFlow 2.15 has
no tf.contrib): gates input, cell input, forget (+ forget_bias), output from [x, h] times the kernel plus the bias;
outputs past each sequence's length zeros, the final state at its last step (the initial state for length 0); the
reversed cell runs each sequence backwards within its length. In a TF1 graph, as a kept model_fn builds it, where
it also trains (BlockLSTM's gradient), its variables named as TF 1.x named them."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

from estimator_migrate.compat import contrib_rnn

RANDOM = np.random.RandomState(5)
TIME, BATCH, INPUT, UNITS = 4, 3, 2, 3
INPUTS = RANDOM.randn(TIME, BATCH, INPUT).astype(np.float32)
LENGTHS = np.array([4, 2, 0], np.int32)


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _numpy_lstm(inputs, kernel, bias, lengths, forget_bias=1.0):
    """(outputs [time, batch, units] masked past each length, final c, final h)."""
    c, h = np.zeros((BATCH, UNITS)), np.zeros((BATCH, UNITS))
    outputs, final_c, final_h = np.zeros((TIME, BATCH, UNITS)), c.copy(), h.copy()
    for step in range(TIME):
        gates = np.concatenate([inputs[step], h], axis=1) @ kernel + bias
        i, ci, f, o = np.split(gates, 4, axis=1)
        c = np.tanh(ci) * _sigmoid(i) + c * _sigmoid(f + forget_bias)
        h = np.tanh(c) * _sigmoid(o)
        inside = step < lengths
        outputs[step][inside] = h[inside]
        final_c[inside], final_h[inside] = c[inside], h[inside]
    return outputs, final_c, final_h


def _run(reversed_cell: bool):
    with tf.Graph().as_default():
        cell = contrib_rnn.LSTMBlockFusedCell(UNITS)
        runner = contrib_rnn.TimeReversedFusedRNN(cell) if reversed_cell else cell
        outputs, state = runner(tf.constant(INPUTS), dtype=tf.float32, sequence_length=tf.constant(LENGTHS))
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.global_variables_initializer())
            session.run(cell._bias.assign(RANDOM.randn(4 * UNITS).astype(np.float32)))
            names = [variable.name for variable in tf.compat.v1.global_variables()]
            return session.run([outputs, state.c, state.h, cell._kernel, cell._bias]), names


@pytest.mark.parametrize("reversed_cell", [False, True], ids=["forward", "time_reversed"])
def test_the_fused_lstm_computes_the_lstm(reversed_cell):
    (outputs, c, h, kernel, bias), names = _run(reversed_cell)
    assert names == ["lstm_fused_cell/kernel:0", "lstm_fused_cell/bias:0"]
    inputs = INPUTS.astype(np.float64)
    if reversed_cell:
        inputs = np.stack([np.concatenate([inputs[:n, b][::-1], inputs[n:, b]]) for b, n in enumerate(LENGTHS)], 1)
    expected, expected_c, expected_h = _numpy_lstm(inputs, kernel, bias, LENGTHS)
    if reversed_cell:
        expected = np.stack([np.concatenate([expected[:n, b][::-1], expected[n:, b]]) for b, n in enumerate(LENGTHS)], 1)
    np.testing.assert_allclose(outputs, expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(c, expected_c, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(h, expected_h, rtol=1e-5, atol=1e-6)
    assert not outputs[:, 2].any() and not h[2].any()  # length 0: zeros, the initial state


def test_a_bilstm_of_fused_cells_trains_in_a_graph():
    with tf.Graph().as_default():
        forward, backward = contrib_rnn.LSTMBlockFusedCell(UNITS), contrib_rnn.LSTMBlockFusedCell(UNITS)
        backward = contrib_rnn.TimeReversedFusedRNN(backward)
        lengths = tf.constant(LENGTHS)
        output_fw, _ = forward(tf.constant(INPUTS), dtype=tf.float32, sequence_length=lengths)
        output_bw, _ = backward(tf.constant(INPUTS), dtype=tf.float32, sequence_length=lengths)
        loss = tf.reduce_sum(tf.square(tf.concat([output_fw, output_bw], axis=-1) - 0.5))
        train = tf.compat.v1.train.AdamOptimizer(0.1).minimize(loss)
        names = sorted(variable.name for variable in tf.compat.v1.trainable_variables())
        assert names == ["lstm_fused_cell/bias:0", "lstm_fused_cell/kernel:0", "lstm_fused_cell_1/bias:0",
                         "lstm_fused_cell_1/kernel:0"]
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.global_variables_initializer())
            before = session.run(loss)
            for _ in range(10):
                session.run(train)
            assert session.run(loss) < before


_TAGGER = '''\
import argparse
import json
import numpy as np
import tensorflow as tf


def model_fn(features, labels, mode, params):
    words, nwords = features["words"], features["nwords"]
    embedded = tf.nn.embedding_lookup(tf.get_variable("embeddings", [20, 8]), words)
    time_major = tf.transpose(embedded, perm=[1, 0, 2])
    lstm_cell_fw = tf.contrib.rnn.LSTMBlockFusedCell(16)
    lstm_cell_bw = tf.contrib.rnn.TimeReversedFusedRNN(tf.contrib.rnn.LSTMBlockFusedCell(16))
    output_fw, _ = lstm_cell_fw(time_major, dtype=tf.float32, sequence_length=nwords)
    output_bw, _ = lstm_cell_bw(time_major, dtype=tf.float32, sequence_length=nwords)
    output = tf.transpose(tf.concat([output_fw, output_bw], axis=-1), perm=[1, 0, 2])
    logits = tf.layers.dense(output, 3)
    crf_params = tf.get_variable("crf", [3, 3], dtype=tf.float32)
    pred_ids, _ = tf.contrib.crf.crf_decode(logits, crf_params, nwords)
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"pred_ids": pred_ids})
    log_likelihood, _ = tf.contrib.crf.crf_log_likelihood(logits, labels, nwords, crf_params)
    loss = tf.reduce_mean(-log_likelihood)
    train_op = tf.train.AdamOptimizer(0.05).minimize(loss, global_step=tf.train.get_or_create_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", required=True)
    parser.add_argument("--results", required=True)
    args = parser.parse_args()
    random = np.random.RandomState(0)
    words = random.randint(1, 20, size=(64, 6))
    nwords = random.randint(2, 7, size=64).astype(np.int32)
    words[np.arange(6)[None, :] >= nwords[:, None]] = 0
    # a word's tag depends on the word before it: only the forward half sees that
    tags = np.concatenate([np.zeros((64, 1)), words[:, :-1] % 3], axis=1).astype(np.int32)
    tags[np.arange(6)[None, :] >= nwords[:, None]] = 0
    features = {"words": words, "nwords": nwords}
    estimator = tf.estimator.Estimator(model_fn, model_dir=args.model_dir)
    estimator.train(lambda: tf.data.Dataset.from_tensor_slices((features, tags)).repeat().batch(16), max_steps=150)
    predicted = [p["pred_ids"].tolist() for p in estimator.predict(
        lambda: tf.data.Dataset.from_tensor_slices(features).batch(16))]
    names = estimator.get_variable_names()
    with open(args.results, "w") as out:
        json.dump({"predicted": predicted, "tags": tags.tolist(), "nwords": nwords.tolist(), "names": names}, out)


if __name__ == "__main__":
    main()
'''


@pytest.mark.parametrize("target", ["keras", "loop"])
def test_a_migrated_bilstm_crf_tagger_learns_its_tags(target, tmp_path):
    """tf_ner's shape: a fused BiLSTM (one half time-reversed) under a CRF, in a model_fn kept as written: tags that
    depend on the previous word are learnt; the variables have TF 1.x's names."""
    import json

    from tests.conftest import MODERN_PYTHON, migrate_file, run

    program = tmp_path / "tagger.py"
    program.write_text(_TAGGER)
    migrated = migrate_file(program, tmp_path / "migrated", target)
    assert "contrib_rnn.TimeReversedFusedRNN(contrib_rnn.LSTMBlockFusedCell(16))" in migrated.read_text()
    assert "tf.contrib" not in migrated.read_text()
    run([MODERN_PYTHON, migrated, "--model_dir", tmp_path / "model", "--results", tmp_path / "results.json"])
    results = json.loads((tmp_path / "results.json").read_text())
    assert {"lstm_fused_cell/kernel", "lstm_fused_cell_1/kernel", "crf"} <= set(results["names"])
    right = total = 0
    for predicted, tags, length in zip(results["predicted"], results["tags"], results["nwords"], strict=True):
        right += sum(p == t for p, t in zip(predicted[:length], tags[:length], strict=True))
        total += length
    assert right / total > 0.9, right / total
