"""tf.contrib.crf (TensorFlow 1.x's linear-chain CRF: sequence taggers, named-entity recognizers such as tf_ner's
Estimator) as plain TensorFlow ops, which run in a kept model_fn's TF1 graph and eagerly alike.

The same functions and results as TensorFlow 1.15's: `crf_log_likelihood` (its `transitions` variable, made with
`get_variable` when none is given, under the same name), `crf_sequence_score` (`crf_unary_score` +
`crf_binary_score`), `crf_log_norm` (the forward algorithm), `crf_decode` (Viterbi in TensorFlow: tags past a
sequence's length are 0, ties go to the lowest tag, as tf.argmax) and `viterbi_decode` (Viterbi in numpy). A
sequence of length 0 scores 0 and has a log normalizer of 0, as in 1.15.
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf


def _num_tags(tensor, axis: int) -> int:
    return tf.compat.dimension_value(tensor.shape[axis])


def _mask(sequence_lengths, max_length, dtype=tf.float32):
    """[batch, max_length]: 1 where a position is inside its sequence."""
    return tf.sequence_mask(sequence_lengths, max_length, dtype=dtype)


def crf_unary_score(tag_indices, sequence_lengths, inputs):
    """The sum over each sequence of its tags' unary potentials: [batch]."""
    picked = tf.gather(inputs, tf.cast(tag_indices, tf.int32), axis=2, batch_dims=2)  # [batch, time]
    return tf.reduce_sum(picked * _mask(sequence_lengths, tf.shape(tag_indices)[1], picked.dtype), axis=1)


def crf_binary_score(tag_indices, sequence_lengths, transition_params):
    """The sum over each sequence of the transitions between its consecutive tags: [batch]."""
    tags = tf.cast(tag_indices, tf.int32)
    pairs = tf.stack([tags[:, :-1], tags[:, 1:]], axis=-1)  # [batch, time - 1, 2]
    scores = tf.gather_nd(transition_params, pairs)
    mask = _mask(sequence_lengths, tf.shape(tag_indices)[1], scores.dtype)[:, 1:]  # a transition into position t
    return tf.reduce_sum(scores * mask, axis=1)


def crf_sequence_score(inputs, tag_indices, sequence_lengths, transition_params):
    """The unnormalized score of each tag sequence (0 for a sequence of length 0): [batch]."""
    sequence_lengths = tf.cast(sequence_lengths, tf.int32)
    scores = crf_unary_score(tag_indices, sequence_lengths, inputs) + \
        crf_binary_score(tag_indices, sequence_lengths, transition_params)
    return tf.where(sequence_lengths <= 0, tf.zeros_like(scores), scores)


def crf_log_norm(inputs, sequence_lengths, transition_params):
    """The log of each sequence's partition function (0 for length 0), by the forward algorithm: [batch]."""
    sequence_lengths = tf.cast(sequence_lengths, tf.int32)
    time_major = tf.transpose(inputs, [1, 0, 2])  # [time, batch, tags]
    steps = tf.range(1, tf.shape(inputs)[1])

    def forward(alphas, step):
        new = time_major[step] + tf.reduce_logsumexp(alphas[:, :, None] + transition_params[None], axis=1)
        return tf.where((step < sequence_lengths)[:, None], new, alphas)  # a finished sequence keeps its alphas

    alphas = tf.foldl(forward, steps, initializer=time_major[0])
    log_norm = tf.reduce_logsumexp(alphas, axis=1)
    return tf.where(sequence_lengths <= 0, tf.zeros_like(log_norm), log_norm)


def crf_log_likelihood(inputs, tag_indices, sequence_lengths, transition_params=None):
    """(log-likelihood of each tag sequence [batch], the transition matrix: given, or a `transitions` variable)."""
    if transition_params is None:
        num_tags = _num_tags(inputs, 2)
        transition_params = tf.compat.v1.get_variable("transitions", [num_tags, num_tags])
    log_likelihood = crf_sequence_score(inputs, tag_indices, sequence_lengths, transition_params) - \
        crf_log_norm(inputs, sequence_lengths, transition_params)
    return log_likelihood, transition_params


def crf_decode(potentials, transition_params, sequence_length):
    """Viterbi decoding in TensorFlow: (the highest scoring tags [batch, time] int32, their scores [batch])."""
    lengths = tf.cast(sequence_length, tf.int32)
    time_major = tf.transpose(potentials, [1, 0, 2])  # [time, batch, tags]
    steps = tf.range(1, tf.shape(potentials)[1])

    def forward(carried, step):
        scores, _ = carried
        candidates = scores[:, :, None] + transition_params[None]  # [batch, from, to]
        inside = (step < lengths)[:, None]  # a finished sequence keeps its scores
        return (tf.where(inside, time_major[step] + tf.reduce_max(candidates, axis=1), scores),
                tf.argmax(candidates, axis=1, output_type=tf.int32))

    no_pointers = tf.zeros(tf.shape(time_major[0]), tf.int32)
    scores, backpointers = tf.scan(forward, steps, initializer=(time_major[0], no_pointers))  # [time - 1, ...]
    any_step = tf.size(steps) > 0
    final_scores = tf.cond(any_step, lambda: scores[-1], lambda: time_major[0])
    last_tag = tf.argmax(final_scores, axis=1, output_type=tf.int32)

    def backward(carried, step):
        tag, _ = carried  # the tag at `step`, where the sequence reaches it
        inside = step < lengths
        previous = tf.gather(backpointers[step - 1], tag, axis=1, batch_dims=1)
        return tf.where(inside, previous, tag), tf.where(inside, tag, tf.zeros_like(tag))  # past its end: 0

    carried, later_tags = tf.scan(backward, tf.reverse(steps, [0]), initializer=(last_tag, tf.zeros_like(last_tag)))
    first_tag = tf.cond(any_step, lambda: carried[-1], lambda: last_tag)  # traced back to position 0
    first_tag = tf.where(lengths > 0, first_tag, tf.zeros_like(first_tag))
    tags = tf.concat([first_tag[None], tf.reverse(later_tags, [0])], axis=0)  # [time, batch]
    return tf.transpose(tags), tf.reduce_max(final_scores, axis=1)


def viterbi_decode(score, transition_params):
    """Viterbi decoding in numpy of one sequence's [time, tags] scores: (its tags as a list, their score)."""
    trellis = np.zeros_like(score)
    backpointers = np.zeros_like(score, dtype=np.int32)
    trellis[0] = score[0]
    for step in range(1, score.shape[0]):
        candidates = np.expand_dims(trellis[step - 1], 1) + transition_params
        trellis[step] = score[step] + np.max(candidates, 0)
        backpointers[step] = np.argmax(candidates, 0)
    tags = [int(np.argmax(trellis[-1]))]
    for pointers in reversed(backpointers[1:]):
        tags.append(int(pointers[tags[-1]]))
    tags.reverse()
    return tags, np.max(trellis[-1])
