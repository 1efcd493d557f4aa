"""compat.contrib_crf: tf.contrib.crf's linear-chain CRF as TensorFlow 1.15 computed it (TensorFlow 2.15 has no
tf.contrib: the reference is the definition, every tag sequence enumerated in numpy). On a batch of sequences of
lengths 4, 1, 3 and 0 (padded to 4) with 3 tags: each gold sequence's score and log-likelihood (a length-0 one: 0),
the decoded tags (0 past a sequence's end) and their scores, the numpy viterbi_decode; in a TF1 graph (a kept
model_fn) and eagerly; `crf_log_likelihood` makes its `transitions` variable under TF 1.x's name."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import tensorflow as tf

from estimator_migrate.compat import contrib_crf
from tests.conftest import run_tagger

RANDOM = np.random.RandomState(3)
POTENTIALS = RANDOM.randn(4, 4, 3).astype(np.float32)
TRANSITIONS = RANDOM.randn(3, 3).astype(np.float32)
LENGTHS = np.array([4, 1, 3, 0], np.int64)
GOLD = RANDOM.randint(0, 3, size=(4, 4)).astype(np.int32)


def _score(potentials, tags, length):
    return sum(potentials[t, tags[t]] for t in range(length)) + \
        sum(TRANSITIONS[tags[t - 1], tags[t]] for t in range(1, length))


def _expected():
    """Per example: (gold score, log partition, best tags padded with 0, best score), by enumeration."""
    found = []
    for potentials, gold, length in zip(POTENTIALS.astype(np.float64), GOLD, LENGTHS, strict=True):
        if length == 0:
            found.append((0.0, 0.0, [0] * 4, None))
            continue
        paths = list(itertools.product(range(3), repeat=int(length)))
        scores = np.array([_score(potentials, path, length) for path in paths])
        best = paths[int(np.argmax(scores))]
        found.append((_score(potentials, gold, length), np.log(np.exp(scores).sum()),
                      list(best) + [0] * (4 - int(length)), scores.max()))
    return found


def _crf_ops():
    inputs, gold, lengths = tf.constant(POTENTIALS), tf.constant(GOLD), tf.constant(LENGTHS)
    transitions = tf.constant(TRANSITIONS)
    log_likelihood, _ = contrib_crf.crf_log_likelihood(inputs, gold, lengths, transitions)
    tags, best = contrib_crf.crf_decode(inputs, transitions, lengths)
    return {"score": contrib_crf.crf_sequence_score(inputs, gold, lengths, transitions),
            "log_norm": contrib_crf.crf_log_norm(inputs, lengths, transitions),
            "log_likelihood": log_likelihood, "tags": tags, "best": best}


@pytest.mark.parametrize("graph", [True, False], ids=["tf1_graph", "eager"])
def test_the_crf_scores_normalizes_and_decodes_as_its_definition(graph):
    if graph:
        with tf.Graph().as_default():
            ops = _crf_ops()
            with tf.compat.v1.Session() as session:
                got = session.run(ops)
    else:
        got = {name: value.numpy() for name, value in _crf_ops().items()}
    for index, (score, log_norm, tags, best) in enumerate(_expected()):
        assert got["score"][index] == pytest.approx(score, abs=1e-5), index
        assert got["log_norm"][index] == pytest.approx(log_norm, abs=1e-5), index
        assert got["log_likelihood"][index] == pytest.approx(score - log_norm, abs=1e-5), index
        assert got["tags"][index].tolist() == tags, index
        if best is not None:
            assert got["best"][index] == pytest.approx(best, abs=1e-5), index
            numpy_tags, numpy_best = contrib_crf.viterbi_decode(POTENTIALS[index, :LENGTHS[index]], TRANSITIONS)
            assert numpy_tags == tags[:LENGTHS[index]] and numpy_best == pytest.approx(best, abs=1e-5)
    assert got["tags"].dtype == np.int32


def test_the_transitions_variable_has_tf1s_name_and_trains():
    with tf.Graph().as_default():
        with tf.compat.v1.variable_scope("crf_layer"):
            log_likelihood, transitions = contrib_crf.crf_log_likelihood(
                tf.constant(POTENTIALS), tf.constant(GOLD), tf.constant(LENGTHS))
        assert transitions.name == "crf_layer/transitions:0" and transitions.shape == (3, 3)
        train = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(-tf.reduce_mean(log_likelihood))
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.global_variables_initializer())
            before = session.run(-tf.reduce_mean(log_likelihood))
            for _ in range(5):
                session.run(train)
            assert session.run(-tf.reduce_mean(log_likelihood)) < before


def test_sequences_of_one_step_are_their_unary_potentials():
    """max_seq_len 1 (TF 1.15 took a shortcut there: the same values)."""
    potentials, lengths = tf.constant(POTENTIALS[:, :1]), tf.constant([1, 1, 1, 0])
    tags, best = contrib_crf.crf_decode(potentials, tf.constant(TRANSITIONS), lengths)
    log_norm = contrib_crf.crf_log_norm(potentials, lengths, tf.constant(TRANSITIONS))
    first = POTENTIALS[:, 0].astype(np.float64)
    assert tags.numpy()[:, 0].tolist() == [*np.argmax(first[:3], axis=1).tolist(), 0]
    np.testing.assert_allclose(best.numpy()[:3], first[:3].max(axis=1), rtol=1e-6)
    np.testing.assert_allclose(log_norm.numpy(), [*np.log(np.exp(first[:3]).sum(axis=1)), 0.0], rtol=1e-6)



@pytest.mark.parametrize("target", ["keras", "loop"])
def test_a_migrated_crf_tagger_learns_its_tags(target, tmp_path):
    """tests/legacy/crf_tagger_program.py, its model_fn kept as written (compat.wrapped_model_fns), trains and decodes
    with the CRF: tags that are the words' ids modulo 3 are learnt (each predicted sequence 0 past its words)."""
    results = run_tagger(target, tmp_path)
    assert "contrib_crf.crf_log_likelihood(" in results["source"]
    for predicted, length in zip(results["predicted"], results["nwords"], strict=True):
        assert predicted[length:] == [0] * (6 - length)
    assert results["accuracy"] > 0.95 and results["loss"] < 1.0, (results["accuracy"], results["loss"])
