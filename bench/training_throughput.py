"""Benchmark: training steps/s of a TF1 program (legacy env) against its migrations (modern env).

    PYTHONPATH=. .venv/bin/python bench/training_throughput.py [--steps 20000] [--repeats 3]
        [--program estimator|hooks|runtime|runtime-hooks|model-fn|model-fn-hooks|monitored-session|saver-loop]

Anchor: the original program under TensorFlow 2.15 + tensorflow-estimator: an Estimator program
(DNNClassifier [128, 64] on digits, Adam, batch 32, shuffled, a checkpoint every 200 steps, summaries every
100), the same estimator built by a factory function (`runtime`: the run-time tier, compat.estimator_training,
as the real programs' factories and flags get), either given LoggingTensorHook(every_n_iter=100) and
StepCounterHook(every_n_steps=100) (`hooks`, `runtime-hooks`), the same network as a custom model_fn writing a summary of its
own (`model-fn`: tier 2), a plain custom model_fn whose spec adds a NanTensorHook, trained with the two hooks
above (`model-fn-hooks`), or the same
network, data and checkpoint cadence hand-written with a MonitoredTrainingSession, or
with a tf.Session loop saving with a tf.train.Saver. It is
rewritten by `migrate rewrite --target keras` and `--target loop`, and each of the three runs for 100 steps
and for 100 + `--steps` steps in fresh model_dirs: steps/s = `--steps` / (difference of the two wall times),
so start-up, graph building and tracing cancel out. Median of `--repeats`; prints the ratios.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODERN = Path(sys.executable)
LEGACY = ROOT / ".venv-legacy" / "bin" / "python"
WARM_UP_STEPS = 100

PROGRAM = '''\
import argparse

import numpy as np
import tensorflow as tf
from sklearn.datasets import load_digits

tf1 = tf.compat.v1


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", required=True)
    parser.add_argument("--max_steps", type=int, required=True)
    args = parser.parse_args()
    digits = load_digits()
    columns = [tf1.feature_column.numeric_column("x", shape=[64])]
    config = tf1.estimator.RunConfig(save_checkpoints_steps=200, save_summary_steps=100)
    classifier = tf1.estimator.DNNClassifier(
        feature_columns=columns,
        hidden_units=[128, 64],
        n_classes=10,
        optimizer=tf1.train.AdamOptimizer(0.001),
        model_dir=args.model_dir,
        config=config,
    )
    train_input_fn = tf1.estimator.inputs.numpy_input_fn(
        x={"x": (digits.data / 16.0).astype(np.float32)},
        y=digits.target.astype(np.int32),
        batch_size=32,
        num_epochs=None,
        shuffle=True,
    )
    classifier.train(input_fn=train_input_fn, max_steps=args.max_steps)


if __name__ == "__main__":
    main()
'''


SESSION_PROGRAM = '''\
import argparse

import numpy as np
import tensorflow.compat.v1 as tf
from sklearn.datasets import load_digits

tf.disable_eager_execution()
MODEL_DIR, MAX_STEPS = None, None


def input_fn():
    digits = load_digits()
    features = (digits.data / 16.0).astype(np.float32)
    labels = digits.target.astype(np.int32)
    return tf.data.Dataset.from_tensor_slices((features, labels)).shuffle(len(labels)).repeat().batch(32)


def train():
    global_step = tf.train.get_or_create_global_step()
    features, labels = tf.data.make_one_shot_iterator(input_fn()).get_next()
    hidden = tf.layers.dense(features, 128, activation=tf.nn.relu)
    hidden = tf.layers.dense(hidden, 64, activation=tf.nn.relu)
    logits = tf.layers.dense(hidden, 10)
    loss = tf.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
    train_op = tf.train.AdamOptimizer(0.001).minimize(loss, global_step=global_step)
    hooks = [tf.train.StopAtStepHook(last_step=MAX_STEPS), tf.train.NanTensorHook(loss)]
    with tf.train.MonitoredTrainingSession(checkpoint_dir=MODEL_DIR, save_checkpoint_steps=200, hooks=hooks) as sess:
        while not sess.should_stop():
            sess.run(train_op)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", required=True)
    parser.add_argument("--max_steps", type=int, required=True)
    args = parser.parse_args()
    MODEL_DIR, MAX_STEPS = args.model_dir, args.max_steps
    train()
'''
SAVER_PROGRAM = SESSION_PROGRAM.replace(
    """    hooks = [tf.train.StopAtStepHook(last_step=MAX_STEPS), tf.train.NanTensorHook(loss)]
    with tf.train.MonitoredTrainingSession(checkpoint_dir=MODEL_DIR, save_checkpoint_steps=200, hooks=hooks) as sess:
        while not sess.should_stop():
            sess.run(train_op)
""",
    """    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        latest = tf.train.latest_checkpoint(MODEL_DIR)
        if latest:
            saver.restore(sess, latest)
        for step in range(sess.run(global_step), MAX_STEPS):
            sess.run(train_op)
            if (step + 1) % 200 == 0:
                saver.save(sess, os.path.join(MODEL_DIR, "model.ckpt"), global_step=global_step)
        saver.save(sess, os.path.join(MODEL_DIR, "model.ckpt"), global_step=global_step)
""",
).replace("import argparse\n", "import argparse\nimport os\n", 1)
# The same network as a custom model_fn the rewrite keeps as written (tier 2: compat.wrapped_model_fns), with a
# summary of its own: the migrated training writes the model_fn's summaries as Estimator did (compat.wrapped_hooks'
# SummarySaver), its steps then one by one
MODEL_FN_PROGRAM = PROGRAM.replace(
    """    columns = [tf1.feature_column.numeric_column("x", shape=[64])]
""", "").replace(
    """    classifier = tf1.estimator.DNNClassifier(
        feature_columns=columns,
        hidden_units=[128, 64],
        n_classes=10,
        optimizer=tf1.train.AdamOptimizer(0.001),
        model_dir=args.model_dir,
        config=config,
    )
""", """    classifier = tf1.estimator.Estimator(model_fn=model_fn, model_dir=args.model_dir, config=config)
""").replace(
    """def main():
""", """def model_fn(features, labels, mode):
    with tf1.variable_scope("network"):  # (a scope: the model_fn stays as written, tier 2)
        hidden = tf1.layers.dense(features["x"], 128, activation=tf.nn.relu)
        hidden = tf1.layers.dense(hidden, 64, activation=tf.nn.relu)
        logits = tf1.layers.dense(hidden, 10)
    loss = tf1.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
    tf1.summary.scalar("batch_accuracy", tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), tf.cast(labels, tf.int64)),
                                                                 tf.float32)))
    train_op = tf1.train.AdamOptimizer(0.001).minimize(loss, global_step=tf1.train.get_global_step())
    return tf1.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def main():
""")
# The same program with its estimator built by a factory, as real trainers build theirs: the run-time tier's
RUNTIME_PROGRAM = PROGRAM.replace("def main():", """def build_estimator(model_dir, config):
    return tf1.estimator.DNNClassifier(
        feature_columns=[tf1.feature_column.numeric_column("x", shape=[64])],
        hidden_units=[128, 64],
        n_classes=10,
        optimizer=tf1.train.AdamOptimizer(0.001),
        model_dir=model_dir,
        config=config,
    )


def main():""").replace(PROGRAM[PROGRAM.index("    columns = "):PROGRAM.index("    train_input_fn")], """\
    config = tf1.estimator.RunConfig(save_checkpoints_steps=200, save_summary_steps=100)
    classifier = build_estimator(args.model_dir, config)
""")
# Hooks with a step cadence, as canned estimators' users gave them (the step logged by the name of Estimator's tensor)
HOOKED_TRAIN = """\
    hooks = [
        tf1.train.LoggingTensorHook({"step": "global_step"}, every_n_iter=100),
        tf1.train.StepCounterHook(every_n_steps=100, output_dir=args.model_dir),
    ]
    classifier.train(input_fn=train_input_fn, max_steps=args.max_steps, hooks=hooks)
"""
UNHOOKED_TRAIN = "    classifier.train(input_fn=train_input_fn, max_steps=args.max_steps)\n"
# The same network as a plain custom model_fn whose spec adds a NanTensorHook, trained with the hooks above: the three
# hooks issue 63's goal names (LoggingTensorHook, StepCounterHook, NanTensorHook)
MODEL_FN_HOOKS_PROGRAM = MODEL_FN_PROGRAM.replace(
    """    with tf1.variable_scope("network"):  # (a scope: the model_fn stays as written, tier 2)
        hidden = tf1.layers.dense(features["x"], 128, activation=tf.nn.relu)
        hidden = tf1.layers.dense(hidden, 64, activation=tf.nn.relu)
        logits = tf1.layers.dense(hidden, 10)
""", """    hidden = tf1.layers.dense(features["x"], 128, activation=tf.nn.relu)
    hidden = tf1.layers.dense(hidden, 64, activation=tf.nn.relu)
    logits = tf1.layers.dense(hidden, 10)
""").replace(
    """    tf1.summary.scalar("batch_accuracy", tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), tf.cast(labels, tf.int64)),
                                                                 tf.float32)))
""", "").replace(
    "    return tf1.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)\n",
    "    return tf1.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op,\n"
    "                                       training_hooks=[tf1.train.NanTensorHook(loss)])\n",
).replace(UNHOOKED_TRAIN, HOOKED_TRAIN)
PROGRAMS = {
    "estimator": ("Estimator", PROGRAM),
    "hooks": ("Estimator with hooks", PROGRAM.replace(UNHOOKED_TRAIN, HOOKED_TRAIN)),
    "runtime": ("Estimator (built by a factory)", RUNTIME_PROGRAM),
    "runtime-hooks": ("Estimator (built by a factory) with hooks", RUNTIME_PROGRAM.replace(UNHOOKED_TRAIN, HOOKED_TRAIN)),
    "model-fn": ("Estimator (custom model_fn)", MODEL_FN_PROGRAM),
    "model-fn-hooks": ("Estimator (custom model_fn) with hooks", MODEL_FN_HOOKS_PROGRAM),
    "monitored-session": ("MonitoredTrainingSession", SESSION_PROGRAM),
    "saver-loop": ("tf.Session + Saver loop", SAVER_PROGRAM),
}


def wall_time(python: Path, program: Path, model_dir: Path, steps: int, environment: dict | None = None) -> float:
    start = time.perf_counter()
    subprocess.run(
        [str(python), str(program), "--model_dir", str(model_dir), "--max_steps", str(steps)],
        check=True,
        capture_output=True,
        env={"TF_CPP_MIN_LOG_LEVEL": "2", "PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), **(environment or {})},
    )
    return time.perf_counter() - start


def original_and_migrated(name: str, scratch: Path) -> tuple[Path, dict[str, Path]]:
    """PROGRAMS[name] written in `scratch`, and its rewrites for each target (`migrate rewrite --target T`)."""
    original = scratch / f"{name.replace('-', '_')}_program.py"
    original.write_text(PROGRAMS[name][1])
    return original, migrated_programs(original, scratch)


def migrated_programs(original: Path, scratch: Path) -> dict[str, Path]:
    """The original rewritten for each target (`migrate rewrite --target T`), by target."""
    programs = {}
    for target in ("keras", "loop"):
        out = scratch / target
        subprocess.run(
            [str(MODERN.parent / "migrate"), "rewrite", str(original), "--target", target, "--out", str(out)],
            check=True,
            capture_output=True,
        )
        programs[target] = out / original.name
    return programs


def steps_per_second(python: Path, program: Path, scratch: Path, steps: int) -> float:
    short = wall_time(python, program, Path(tempfile.mkdtemp(dir=scratch)) / "model", WARM_UP_STEPS)
    long = wall_time(python, program, Path(tempfile.mkdtemp(dir=scratch)) / "model", WARM_UP_STEPS + steps)
    return steps / (long - short)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=20000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--program", choices=sorted(PROGRAMS), default="estimator")
    args = parser.parse_args()
    anchor_name = PROGRAMS[args.program][0]
    anchor_label = f"{anchor_name} (TF 2.15)"
    with tempfile.TemporaryDirectory() as directory:
        scratch = Path(directory)
        original, migrated = original_and_migrated(args.program, scratch)
        programs = {anchor_label: (LEGACY, original)}
        for target, program in migrated.items():
            programs[f"migrated, {target} (TF 2.21)"] = (MODERN, program)
        rates = {name: [] for name in programs}
        for _ in range(args.repeats):
            for name, (python, program) in programs.items():
                rates[name].append(steps_per_second(python, program, scratch, args.steps))
    median = {name: statistics.median(values) for name, values in rates.items()}
    anchor = median[anchor_label]
    print(f"{args.program}: {args.steps} steps timed (after {WARM_UP_STEPS}), median of {args.repeats}")
    for name, value in median.items():
        runs = ", ".join(f"{r:.0f}" for r in rates[name])
        print(f"  {name:33s} {value:7.0f} steps/s  {value / anchor:5.2f}x the {anchor_name}  (runs: {runs})")


if __name__ == "__main__":
    main()
