"""BERT finetuning runner, in the shape of google-research/bert's run_classifier.py (TensorFlow 1.15 era): absl
flags through tf.flags, examples written to a TFRecord file in the output directory and read back with
tf.contrib.data.map_and_batch, a TPUEstimator built with use_tpu=False on tf.contrib.tpu's RunConfig, a model_fn
builder whose encoder is variable scopes, get_variable and tf.contrib.layers.layer_norm, and the training op of
optimization.py (AdamWeightDecayOptimizer, which increments the global step itself)."""

import collections
import json
import os

import numpy as np
import tensorflow as tf

import optimization

flags = tf.flags
FLAGS = flags.FLAGS

flags.DEFINE_string("model_dir", None, "The output directory where the model checkpoints will be written.")
flags.DEFINE_integer("max_steps", 20, "Total number of training steps to perform.")
flags.DEFINE_integer("num_train_steps", 100, "Steps over which the learning rate decays to zero.")
flags.DEFINE_integer("warmup_steps", 5, "Steps of linear learning rate warmup.")
flags.DEFINE_float("learning_rate", 5e-3, "The initial learning rate for Adam.")
flags.DEFINE_integer("train_batch_size", 16, "Total batch size for training.")
flags.DEFINE_integer("eval_batch_size", 16, "Total batch size for eval.")
flags.DEFINE_integer("predict_batch_size", 8, "Total batch size for predict.")
flags.DEFINE_integer("save_checkpoints_steps", 10, "How often to save the model checkpoint.")
flags.DEFINE_integer("iterations_per_loop", 10, "How many steps to make in each estimator call.")
flags.DEFINE_bool("use_tpu", False, "Whether to use TPU or GPU/CPU.")
flags.DEFINE_string("results", None, "Where to write the evaluation and predictions (JSON).")

VOCAB_SIZE, SEQ_LENGTH, HIDDEN, NUM_LABELS = 40, 8, 16, 2


def examples():
  """Token ids and labels (a synthetic task: is the first token in the upper half of the vocabulary)."""
  rng = np.random.RandomState(0)
  ids = rng.randint(1, VOCAB_SIZE, size=(96, SEQ_LENGTH))
  return [(list(row), int(row[0] >= VOCAB_SIZE // 2)) for row in ids]


def file_based_convert_examples_to_features(rows, output_file):
  writer = tf.python_io.TFRecordWriter(output_file)
  for input_ids, label_id in rows:
    features = collections.OrderedDict()
    features["input_ids"] = tf.train.Feature(int64_list=tf.train.Int64List(value=input_ids))
    features["label_ids"] = tf.train.Feature(int64_list=tf.train.Int64List(value=[label_id]))
    writer.write(tf.train.Example(features=tf.train.Features(feature=features)).SerializeToString())
  writer.close()


def file_based_input_fn_builder(input_file, seq_length, is_training, drop_remainder):
  name_to_features = {
      "input_ids": tf.FixedLenFeature([seq_length], tf.int64),
      "label_ids": tf.FixedLenFeature([], tf.int64),
  }

  def _decode_record(record, name_to_features):
    example = tf.parse_single_example(record, name_to_features)
    for name in list(example.keys()):
      t = example[name]
      if t.dtype == tf.int64:
        t = tf.to_int32(t)
      example[name] = t
    return example

  def input_fn(params):
    batch_size = params["batch_size"]
    d = tf.data.TFRecordDataset(input_file)
    if is_training:
      d = d.repeat()
    d = d.apply(
        tf.contrib.data.map_and_batch(
            lambda record: _decode_record(record, name_to_features),
            batch_size=batch_size,
            drop_remainder=drop_remainder))
    return d

  return input_fn


def create_model(is_training, input_ids, labels, num_labels):
  with tf.variable_scope("bert"):
    with tf.variable_scope("embeddings"):
      embedding_table = tf.get_variable(
          "word_embeddings", [VOCAB_SIZE, HIDDEN],
          initializer=tf.truncated_normal_initializer(stddev=0.02))
      output = tf.nn.embedding_lookup(embedding_table, input_ids)
      output = tf.contrib.layers.layer_norm(
          inputs=output, begin_norm_axis=-1, begin_params_axis=-1, scope="LayerNorm")
    with tf.variable_scope("pooler"):
      first_token_tensor = tf.squeeze(output[:, 0:1, :], axis=1)
      pooled_output = tf.layers.dense(
          first_token_tensor, HIDDEN, activation=tf.tanh,
          kernel_initializer=tf.truncated_normal_initializer(stddev=0.02))

  output_weights = tf.get_variable(
      "output_weights", [num_labels, HIDDEN],
      initializer=tf.truncated_normal_initializer(stddev=0.02))
  output_bias = tf.get_variable(
      "output_bias", [num_labels], initializer=tf.zeros_initializer())

  with tf.variable_scope("loss"):
    if is_training:
      pooled_output = tf.nn.dropout(pooled_output, keep_prob=1.0)
    logits = tf.matmul(pooled_output, output_weights, transpose_b=True)
    logits = tf.nn.bias_add(logits, output_bias)
    probabilities = tf.nn.softmax(logits, axis=-1)
    log_probs = tf.nn.log_softmax(logits, axis=-1)
    one_hot_labels = tf.one_hot(labels, depth=num_labels, dtype=tf.float32)
    per_example_loss = -tf.reduce_sum(one_hot_labels * log_probs, axis=-1)
    loss = tf.reduce_mean(per_example_loss)
    return (loss, per_example_loss, logits, probabilities)


def model_fn_builder(num_labels, learning_rate, num_train_steps, num_warmup_steps, use_tpu):

  def model_fn(features, labels, mode, params):
    tf.logging.info("*** Features ***")
    input_ids = features["input_ids"]
    label_ids = features["label_ids"]
    is_training = (mode == tf.estimator.ModeKeys.TRAIN)
    (total_loss, per_example_loss, logits, probabilities) = create_model(
        is_training, input_ids, label_ids, num_labels)

    if mode == tf.estimator.ModeKeys.TRAIN:
      train_op = optimization.create_optimizer(
          total_loss, learning_rate, num_train_steps, num_warmup_steps, use_tpu)
      output_spec = tf.contrib.tpu.TPUEstimatorSpec(mode=mode, loss=total_loss, train_op=train_op)
    elif mode == tf.estimator.ModeKeys.EVAL:

      def metric_fn(per_example_loss, label_ids, logits):
        predictions = tf.argmax(logits, axis=-1, output_type=tf.int32)
        accuracy = tf.metrics.accuracy(labels=label_ids, predictions=predictions)
        loss = tf.metrics.mean(values=per_example_loss)
        return {"eval_accuracy": accuracy, "eval_loss": loss}

      eval_metrics = (metric_fn, [per_example_loss, label_ids, logits])
      output_spec = tf.contrib.tpu.TPUEstimatorSpec(mode=mode, loss=total_loss, eval_metrics=eval_metrics)
    else:
      output_spec = tf.contrib.tpu.TPUEstimatorSpec(mode=mode, predictions={"probabilities": probabilities})
    return output_spec

  return model_fn


def main(_):
  tf.logging.set_verbosity(tf.logging.INFO)
  tf.gfile.MakeDirs(FLAGS.model_dir)

  is_per_host = tf.contrib.tpu.InputPipelineConfig.PER_HOST_V2
  run_config = tf.contrib.tpu.RunConfig(
      model_dir=FLAGS.model_dir,
      save_checkpoints_steps=FLAGS.save_checkpoints_steps,
      tpu_config=tf.contrib.tpu.TPUConfig(
          iterations_per_loop=FLAGS.iterations_per_loop,
          num_shards=8,
          per_host_input_for_training=is_per_host))

  model_fn = model_fn_builder(
      num_labels=NUM_LABELS,
      learning_rate=FLAGS.learning_rate,
      num_train_steps=FLAGS.num_train_steps,
      num_warmup_steps=FLAGS.warmup_steps,
      use_tpu=FLAGS.use_tpu)

  estimator = tf.contrib.tpu.TPUEstimator(
      use_tpu=FLAGS.use_tpu,
      model_fn=model_fn,
      config=run_config,
      train_batch_size=FLAGS.train_batch_size,
      eval_batch_size=FLAGS.eval_batch_size,
      predict_batch_size=FLAGS.predict_batch_size)

  train_file = os.path.join(FLAGS.model_dir, "train.tf_record")
  file_based_convert_examples_to_features(examples(), train_file)
  train_input_fn = file_based_input_fn_builder(
      input_file=train_file, seq_length=SEQ_LENGTH, is_training=True, drop_remainder=True)
  estimator.train(input_fn=train_input_fn, max_steps=FLAGS.max_steps)

  eval_input_fn = file_based_input_fn_builder(
      input_file=train_file, seq_length=SEQ_LENGTH, is_training=False, drop_remainder=False)
  result = estimator.evaluate(input_fn=eval_input_fn)
  for key in sorted(result.keys()):
    tf.logging.info("  %s = %s", key, str(result[key]))

  if FLAGS.results:
    predictions = estimator.predict(input_fn=eval_input_fn)
    probabilities = [prediction["probabilities"].tolist() for prediction in predictions][:8]
    with tf.gfile.GFile(FLAGS.results, "w") as writer:
      json.dump({"metrics": {key: float(value) for key, value in result.items()},
                 "probabilities": probabilities}, writer)


if __name__ == "__main__":
  flags.mark_flag_as_required("model_dir")
  tf.app.run()
