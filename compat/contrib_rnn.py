"""tf.contrib.rnn's block LSTMs, `LSTMBlockFusedCell` and `LSTMBlockCell`, and `TimeReversedFusedRNN`, which
TensorFlow 2 has no Python class for (sequence taggers ran their BiLSTMs with them: fast on CPU and GPU alike).

TensorFlow 2 kept the kernel, `BlockLSTM` (and its gradient): the cell runs it over time-major inputs
[time, batch, input] as TF 1.x's did, with its variables `kernel` ([input + units, 4 * units], the gates in the
order input, cell input, forget, output) and `bias` (zeros) under the layer's name (`lstm_fused_cell`, then
`lstm_fused_cell_1`, ...), `forget_bias` added to the forget gate. Given `sequence_length`, the outputs past each
sequence's length are zeros and the final state is the one at its last step (the initial state for a length of 0).
`TimeReversedFusedRNN(cell)` runs a fused cell over each sequence reversed within its length (the backward half of a
BiLSTM) and reverses its outputs back. `LSTMBlockCell`, the one-step cell (for dynamic_rnn), computes the LSTM of
`LSTMCell`: the same gates, peepholes, clipping and variables under the same names, in core ops instead of the
`LSTMBlockCell` kernel.
"""

from __future__ import annotations

import tensorflow as tf
from tensorflow.python.ops import rnn_grad  # noqa: F401  (registers BlockLSTM's gradient)

from . import tf1_programs

tf1_programs.use_tf_keras()  # tf.compat.v1.layers: tf_keras's TF1 layers, as TensorFlow 1.x's cells were built on


class LSTMBlockFusedCell(tf.compat.v1.layers.Layer):
    """TF 1.x's fused LSTM over time-major inputs: `cell(inputs, initial_state=None, dtype=None,
    sequence_length=None)` -> (outputs [time, batch, units], LSTMStateTuple(c, h))."""

    def __init__(self, num_units, forget_bias=1.0, cell_clip=None, use_peephole=False, reuse=None, dtype=None,
                 name="lstm_fused_cell"):
        super().__init__(_reuse=reuse, name=name, dtype=dtype)
        self._num_units = num_units
        self._forget_bias = forget_bias
        self._cell_clip = cell_clip if cell_clip is not None else -1
        self._use_peephole = use_peephole

    @property
    def num_units(self) -> int:
        return self._num_units

    def build(self, input_shape):
        input_size = tf.compat.dimension_value(tf.TensorShape(input_shape)[2])
        if input_size is None:
            raise ValueError(f"Expecting inputs_shape[2] to be set: {input_shape}")
        units = self._num_units
        self._kernel = self.add_weight("kernel", [input_size + units, units * 4])
        self._bias = self.add_weight("bias", [units * 4], initializer=tf.compat.v1.constant_initializer(0.0))
        if self._use_peephole:
            self._peepholes = [self.add_weight(name, [units]) for name in ("w_i_diag", "w_f_diag", "w_o_diag")]
        self.built = True

    def call(self, inputs, initial_state=None, dtype=None, sequence_length=None):
        as_list = isinstance(inputs, list)
        if as_list:
            inputs = tf.stack(inputs)
        if inputs.shape.rank != 3:
            raise ValueError(f"Shape {inputs.shape} must have rank 3")
        time_len, batch_size = tf.shape(inputs)[0], tf.shape(inputs)[1]
        if initial_state is None:
            if dtype is None:
                raise ValueError("Either initial_state or dtype needs to be specified")
            zeros = tf.zeros(tf.stack([batch_size, self._num_units]), dtype=dtype)
            initial_state = zeros, zeros
        elif len(initial_state) != 2:
            raise ValueError("Expecting initial_state to be a tuple with length 2 or None")
        elif dtype is None:
            dtype = initial_state[0].dtype
        initial_cell_state, initial_output = initial_state
        if self._use_peephole:
            w_i, w_f, w_o = self._peepholes
        else:
            w_i = w_f = w_o = tf.zeros([self._num_units], dtype=dtype)
        steps = time_len if sequence_length is None else tf.reduce_max(sequence_length)
        _, cell_states, _, _, _, _, outputs = tf.raw_ops.BlockLSTM(
            seq_len_max=tf.cast(steps, tf.int64), x=inputs, cs_prev=initial_cell_state, h_prev=initial_output,
            w=self._kernel, wci=w_i, wcf=w_f, wco=w_o, b=self._bias, forget_bias=self._forget_bias,
            cell_clip=self._cell_clip, use_peephole=self._use_peephole)
        if sequence_length is None:
            final = cell_states[-1], outputs[-1]
        else:
            sequence_length = tf.convert_to_tensor(sequence_length)
            outputs *= tf.transpose(tf.sequence_mask(sequence_length, time_len, dtype=dtype))[:, :, None]
            # the state at each sequence's last step: position `length` once the initial state is put first
            at_last = tf.stack([tf.cast(sequence_length, tf.int32), tf.range(batch_size)], axis=1)
            final = tuple(tf.gather_nd(tf.concat([start[None], states], axis=0), at_last)
                          for start, states in ((initial_cell_state, cell_states), (initial_output, outputs)))
        if as_list:
            outputs = tf.unstack(outputs)
        return outputs, tf.compat.v1.nn.rnn_cell.LSTMStateTuple(*final)


class TimeReversedFusedRNN:
    """A fused cell run over each sequence reversed (within its length, when given), its outputs reversed back."""

    def __init__(self, cell):
        self._cell = cell

    @staticmethod
    def _reverse(values, lengths):
        if isinstance(values, list):
            return list(reversed(values))
        if lengths is None:
            return tf.reverse(values, [0])
        return tf.reverse_sequence(values, lengths, seq_axis=0, batch_axis=1)

    def __call__(self, inputs, initial_state=None, dtype=None, sequence_length=None, scope=None):
        outputs, state = self._cell(self._reverse(inputs, sequence_length), initial_state=initial_state, dtype=dtype,
                                    sequence_length=sequence_length, scope=scope)
        return self._reverse(outputs, sequence_length), state


class LSTMBlockCell(tf.compat.v1.nn.rnn_cell.LSTMCell):
    """TF 1.x's LSTMBlockCell (its parameters): LSTMCell's LSTM, variables `kernel`, `bias` (and `w_i_diag`,
    `w_f_diag`, `w_o_diag` with peepholes) under `lstm_cell`."""

    def __init__(self, num_units, forget_bias=1.0, cell_clip=None, use_peephole=False, dtype=None, reuse=None,
                 name="lstm_cell"):
        super().__init__(num_units, use_peepholes=use_peephole, cell_clip=cell_clip, forget_bias=forget_bias,
                         state_is_tuple=True, reuse=reuse, name=name, dtype=dtype)
