"""Trains the census-style classifier: train_and_evaluate, then a final evaluation printed as JSON."""
import argparse
import json

import tensorflow as tf

from trainer import inputs, model


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--job-dir", required=True)
    parser.add_argument("--model-type", default="wide_deep", choices=["wide", "deep", "wide_deep"])
    parser.add_argument("--linear-optimizer", default="Ftrl")
    parser.add_argument("--dnn-optimizer", default="Adagrad")
    parser.add_argument("--train-steps", type=int, default=400)
    parser.add_argument("--checkpoint-steps", type=int, default=50)
    args = parser.parse_args()

    run_config = tf.estimator.RunConfig(
        model_dir=args.job_dir, save_checkpoints_steps=args.checkpoint_steps, keep_checkpoint_max=3
    )
    estimator = model.build_estimator(
        run_config, args.model_type, linear_optimizer=args.linear_optimizer, dnn_optimizer=args.dnn_optimizer
    )
    train_spec = tf.estimator.TrainSpec(
        input_fn=lambda: inputs.input_fn(4000, seed=1, batch_size=64), max_steps=args.train_steps
    )
    eval_spec = tf.estimator.EvalSpec(
        input_fn=lambda: inputs.input_fn(1000, seed=2, batch_size=200, num_epochs=1, shuffle=False),
        steps=None,
        start_delay_secs=0,
        throttle_secs=0,
    )
    tf.estimator.train_and_evaluate(estimator, train_spec, eval_spec)
    metrics = estimator.evaluate(
        input_fn=lambda: inputs.input_fn(1000, seed=2, batch_size=200, num_epochs=1, shuffle=False)
    )
    print(json.dumps({"global_step": int(metrics["global_step"]), "accuracy": float(metrics["accuracy"])}))


if __name__ == "__main__":
    main()
