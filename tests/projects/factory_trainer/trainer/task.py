"""Trains the digits classifier with train_and_evaluate."""
import argparse
import functools
import json

import tensorflow as tf

from trainer import inputs, model


def make_config(args):
    return tf.estimator.RunConfig(
        model_dir=args.model_dir,
        save_checkpoints_steps=args.checkpoint_steps,
        keep_checkpoint_max=3,
    )


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model-dir", required=True)
    parser.add_argument("--max-steps", type=int, default=300)
    parser.add_argument("--checkpoint-steps", type=int, default=50)
    args = parser.parse_args()

    estimator = model.build_estimator(make_config(args), hidden_units=[32, 16])
    train_spec = tf.estimator.TrainSpec(
        input_fn=functools.partial(inputs.make_input, 2000, 1, 32), max_steps=args.max_steps
    )
    eval_input_fn = functools.partial(inputs.make_input, 500, 2, 100, epochs=1, shuffle=False)
    eval_spec = tf.estimator.EvalSpec(input_fn=eval_input_fn, steps=None, throttle_secs=0)
    tf.estimator.train_and_evaluate(estimator, train_spec, eval_spec)
    metrics = estimator.evaluate(eval_input_fn, name="held_out")
    print(json.dumps({"global_step": int(metrics["global_step"]), "accuracy": float(metrics["accuracy"])}))


if __name__ == "__main__":
    main()
