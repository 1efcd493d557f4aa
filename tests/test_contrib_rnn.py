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
from tests.codemods.test_fixtures import FIXTURES
from tests.conftest import MODERN_PYTHON, run, run_tagger

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



@pytest.mark.parametrize("target", ["keras", "loop"])
def test_a_migrated_bilstm_crf_tagger_learns_its_tags(target, tmp_path):
    """tests/legacy/crf_tagger_program.py --bilstm (tf_ner's shape: a fused BiLSTM, one half time-reversed, under a
    CRF, in a model_fn kept as written): tags that depend on the previous word are learnt; the variables have TF
    1.x's names."""
    results = run_tagger(target, tmp_path, "--bilstm")
    assert "contrib_rnn.TimeReversedFusedRNN(contrib_rnn.LSTMBlockFusedCell(16))" in results["source"]
    assert {"lstm_fused_cell/kernel", "lstm_fused_cell_1/kernel", "crf"} <= set(results["names"])
    assert results["accuracy"] > 0.9, results["accuracy"]


@pytest.mark.parametrize(("use_peephole", "cell_clip"), [(False, None), (True, 0.5)], ids=["plain", "peephole_clip"])
def test_the_block_cell_is_the_lstmblockcell_kernels_lstm(use_peephole, cell_clip):
    """LSTMBlockCell -> LSTMCell's LSTM: three dynamic_rnn steps give what TensorFlow's LSTMBlockCell kernel (the
    one TF 1.x's class ran) gives from the same variables, which have TF 1.x's names."""
    with tf.Graph().as_default():
        cell = contrib_rnn.LSTMBlockCell(UNITS, forget_bias=0.5, cell_clip=cell_clip, use_peephole=use_peephole)
        outputs, state = tf.compat.v1.nn.dynamic_rnn(cell, tf.constant(INPUTS), dtype=tf.float32, time_major=True)
        variables = {v.name.split("/")[-1].split(":")[0]: v for v in tf.compat.v1.global_variables()}
        expected = ["bias", "kernel"] + (["w_f_diag", "w_i_diag", "w_o_diag"] if use_peephole else [])
        assert sorted(variables) == expected
        assert {v.name.rsplit("/", 1)[0] for v in variables.values()} == {"rnn/lstm_cell"}
        c = h = tf.zeros([BATCH, UNITS])
        zeros = tf.zeros([UNITS])
        kernel_outputs = []
        for step in range(TIME):
            _, c, _, _, _, _, h = tf.raw_ops.LSTMBlockCell(
                x=INPUTS[step], cs_prev=c, h_prev=h, w=variables["kernel"], b=variables["bias"],
                wci=variables.get("w_i_diag", zeros), wcf=variables.get("w_f_diag", zeros),
                wco=variables.get("w_o_diag", zeros), forget_bias=0.5,
                cell_clip=cell_clip if cell_clip is not None else -1, use_peephole=use_peephole)
            kernel_outputs.append(h)
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.global_variables_initializer())
            session.run(variables["bias"].assign(RANDOM.randn(4 * UNITS).astype(np.float32)))
            got, got_c, expected_outputs, expected_c = session.run([outputs, state.c, tf.stack(kernel_outputs), c])
    np.testing.assert_allclose(got, expected_outputs, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_c, expected_c, rtol=1e-5, atol=1e-6)


def test_a_script_importing_contrib_rnn_runs_and_trains_migrated():
    """`from tensorflow.contrib import rnn` with `rnn.BasicLSTMCell`, `rnn.GRUCell`, `rnn.MultiRNNCell` and
    `rnn.static_rnn` (a TF 1.x tutorial script's RNN, fixture contrib_rnn_module_import): migrated, the script runs
    on TensorFlow 2.21 as TF1 graph code and its loss falls (it stopped at the import, with a TODO naming the
    replacement)."""
    program = FIXTURES / "contrib_rnn_module_import" / "keras.py"
    assert "contrib" not in program.read_text().split('"""')[2]
    completed = run([MODERN_PYTHON, program])
    first, last = (float(value) for value in completed.stdout.split()[-3::2])
    assert last < first / 2, completed.stdout
