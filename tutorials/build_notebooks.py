"""Writes the tutorial notebooks (`tutorials/*.ipynb`) from the cells below, without outputs.

    python tutorials/build_notebooks.py

The notebooks are generated so that their diffs stay reviewable here and outputs never reach git;
`tests/test_tutorials.py` checks the committed files equal this script's output, then executes them.
Every notebook works in a `runs/` directory under the current directory and writes what it measured to
`runs/results/<notebook>.json`, which the tests check.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat

HERE = Path(__file__).resolve().parent

# The scenario all notebooks share: digits, a DNN [32, 16], batches of 32, 20 steps, a checkpoint every
# 3 steps, an interruption right after step 5.
SCENARIO = """\
TOTAL_STEPS = 20     # steps of the whole training
SAVE_EVERY = 3       # checkpoint cadence, in steps
INTERRUPT_AT = 5     # the job dies right after this global step
BATCH = 32"""

DATA = """\
import numpy as np
from sklearn.datasets import load_digits

digits = load_digits()
images = (digits.images / 16.0).astype(np.float32)   # 1797 images of 8x8 pixels
labels = digits.target.astype(np.int32)"""

# Each notebook's first code cell: where it runs, checked, one clear error elsewhere (the tests execute each
# notebook in the environment named here).
ENVIRONMENT_CHECK = """\
# Runs in {where}.
import importlib.util
missing = [module for module in {modules!r} if importlib.util.find_spec(module) is None]
if missing:
    raise RuntimeError(f"{{', '.join(missing)}} not installed: run this notebook in {where}")"""
# Modern notebooks use tf_keras only: set before TensorFlow's import (as migrated programs do), TensorFlow 2.21's
# import skips Keras 3, and the Ray workers started from the kernel inherit it.
KERAS_2 = """

import os
os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")   # tf.keras is tf_keras, and TensorFlow starts ~3 s faster"""
LEGACY = "the project's legacy environment, .venv-legacy (TensorFlow 2.15 + tensorflow-estimator; `make env`)"
MODERN = "the project's modern environment, .venv (newest TensorFlow + tf-keras + this project; `make env`)"

RESULTS = """\
import json, os
os.makedirs("runs/results", exist_ok=True)
with open("runs/results/{name}.json", "w") as f:
    json.dump(results, f, indent=1)
results"""


def md(text: str):
    return nbformat.v4.new_markdown_cell(text)


def code(text: str):
    return nbformat.v4.new_code_cell(text)


def header(title: str, text: str, where: str, modules: tuple[str, ...]) -> list:
    check = ENVIRONMENT_CHECK.format(where=where, modules=modules)
    if where == MODERN:
        check += KERAS_2
    return [md(f"# {title}\n\n{text}"), code(check)]


ESTIMATOR_PROGRAM = '''\
%%writefile runs/estimator_program.py
"""A DNNClassifier on digits that checkpoints every SAVE_EVERY steps; --interrupt_at N kills it (SIGKILL)."""
import argparse
import os
import signal

import numpy as np
import tensorflow as tf
from sklearn.datasets import load_digits

tf1 = tf.compat.v1


class InterruptHook(tf1.train.SessionRunHook):
    """Kills this process right after the `at_step`-th step of this run (counting from 0)."""

    def __init__(self, at_step):
        self._at_step = at_step

    def begin(self):
        self._step = -1

    def before_run(self, run_context):
        self._step += 1

    def after_run(self, run_context, run_values):
        if self._step == self._at_step:
            os.kill(os.getpid(), signal.SIGKILL)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", required=True)
    parser.add_argument("--max_steps", type=int, default=20)
    parser.add_argument("--save_every", type=int, default=3)
    parser.add_argument("--interrupt_at", type=int, default=-1)
    args = parser.parse_args()

    digits = load_digits()
    images = (digits.images / 16.0).astype(np.float32)
    labels = digits.target.astype(np.int32)

    config = tf1.estimator.RunConfig(
        save_checkpoints_steps=args.save_every, save_summary_steps=1, tf_random_seed=42
    )
    classifier = tf1.estimator.DNNClassifier(
        feature_columns=[tf1.feature_column.numeric_column("x", shape=[8, 8])],
        hidden_units=[32, 16],
        optimizer=tf1.train.AdamOptimizer(0.01),
        n_classes=10,
        model_dir=args.model_dir,
        config=config,
    )
    train_input_fn = tf1.estimator.inputs.numpy_input_fn(
        x={"x": images}, y=labels, batch_size=32, num_epochs=None, shuffle=True
    )
    classifier.train(
        input_fn=train_input_fn, hooks=[InterruptHook(args.interrupt_at)], max_steps=args.max_steps
    )


if __name__ == "__main__":
    main()'''


def estimator_notebook() -> list:
    return header(
        "1 · Estimator: checkpoints in `model_dir`, a crash, and the resume",
        "TensorFlow 1's `tf.estimator` saved `model.ckpt-N` every `save_checkpoints_steps` and, run again, "
        "resumed from the latest one. This notebook reproduces that with a **real crash** (the process "
        "kills itself with SIGKILL right after step 5) and shows what is on disk.\n\n"
        "**Environment:** Estimator exists only up to TensorFlow 2.15, so this notebook runs in the "
        "project's legacy environment (`.venv-legacy`: TensorFlow 2.15 + tensorflow-estimator 2.15).",
        LEGACY,
        ("tensorflow_estimator", "sklearn"),
    ) + [
        code(SCENARIO + "\nimport os, shutil, subprocess, sys\nos.makedirs('runs', exist_ok=True)"),
        md("The training program, written to a file so it can run (and die) as its own process. "
           "`RunConfig(save_checkpoints_steps=...)` sets the cadence; `InterruptHook` is the crash."),
        code(ESTIMATOR_PROGRAM),
        md("First the reference: 20 steps without interruption."),
        code("""\
def train(model_dir, interrupt_at=-1):
    command = [sys.executable, "runs/estimator_program.py", "--model_dir", model_dir,
               "--max_steps", str(TOTAL_STEPS), "--save_every", str(SAVE_EVERY),
               "--interrupt_at", str(interrupt_at)]
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"}
    return subprocess.run(command, env=env, capture_output=True, text=True).returncode

shutil.rmtree("runs/estimator", ignore_errors=True)
print("uninterrupted run exit code:", train("runs/estimator/uninterrupted"))"""),
        md("Now the same training, killed right after global step 5. The hook counts the steps of its own "
           "run from 0, so `interrupt_at=INTERRUPT_AT - 1` in a fresh run."),
        code("""\
killed = train("runs/estimator/interrupted", interrupt_at=INTERRUPT_AT - 1)
print("exit code:", killed, "(-9: killed by SIGKILL)")
files_after_kill = sorted(os.listdir("runs/estimator/interrupted"))
print(files_after_kill)
print(open("runs/estimator/interrupted/checkpoint").read())"""),
        md("The `checkpoint` state file names the latest checkpoint. Everything after it is lost: "
           "the Estimator saved at step 3, so steps 4 and 5 will be trained again."),
        code("""\
import tensorflow as tf
latest_after_kill = tf.train.latest_checkpoint("runs/estimator/interrupted")
step_after_kill = int(tf.train.load_checkpoint(latest_after_kill).get_tensor("global_step"))
print(latest_after_kill, "global_step =", step_after_kill)"""),
        md("Run the same command again: the Estimator restores `model.ckpt-3` and trains to step 20. "
           "(A copy of the directory as the crash left it is kept for notebook 4, which converts it.)"),
        code("""\
shutil.copytree("runs/estimator/interrupted", "runs/estimator/after_kill")
print("re-run exit code:", train("runs/estimator/interrupted"))
final = tf.train.load_checkpoint(tf.train.latest_checkpoint("runs/estimator/interrupted"))
print("final global_step:", final.get_tensor("global_step"))"""),
        md("The loss the Estimator logged at each global step (its summaries), for both runs. The killed "
           "run's last summaries never reached the disk: its event file ends in a half-written record, "
           "because SIGKILL leaves no time to flush. Steps 4 and 5 were trained twice, but logged once."),
        code("""\
import glob

def logged_losses(model_dir):
    points = []
    for events in sorted(glob.glob(f"{model_dir}/events.out.tfevents.*")):   # one file per run
        try:
            for event in tf.compat.v1.train.summary_iterator(events):
                points += [[int(event.step), v.simple_value] for v in event.summary.value if v.tag == "loss"]
        except tf.errors.DataLossError:
            pass   # the killed run's file ends in a half-written record: SIGKILL gives no time to flush
    return points

curves = {name: logged_losses(f"runs/estimator/{name}") for name in ("uninterrupted", "interrupted")}
for name, points in curves.items():
    print(name, [step for step, _ in points])"""),
        md("The resumed run re-reads its input from the start (`numpy_input_fn` restarts), so its final "
           "weights differ from the uninterrupted run's:"),
        code("""\
reference = tf.train.load_checkpoint(tf.train.latest_checkpoint("runs/estimator/uninterrupted"))
weights = [n for n in reference.get_variable_to_shape_map() if n.startswith("dnn/") and "Adam" not in n]
difference = max(float(abs(final.get_tensor(n) - reference.get_tensor(n)).max()) for n in weights)
print("max |w - w_uninterrupted| =", difference)"""),
        code("""\
results = {
    "killed_exit_code": killed,
    "max_weight_difference": difference,
    "step_after_kill": step_after_kill,
    "final_step": int(final.get_tensor("global_step")),
    "files_after_kill": files_after_kill,
    "curves": curves,
}
""" + RESULTS.format(name="01_estimator")),
    ]


KERAS_SETUP = """\
import os, shutil
import tensorflow as tf
import tf_keras

def make_model():
    tf_keras.utils.set_random_seed(42)   # same initial weights for every run
    model = tf_keras.Sequential([
        tf_keras.layers.Flatten(input_shape=(8, 8)),
        tf_keras.layers.Dense(32, activation="relu"),
        tf_keras.layers.Dense(16, activation="relu"),
        tf_keras.layers.Dense(10),
    ])
    model.compile(optimizer=tf_keras.optimizers.Adam(0.01),
                  loss=tf_keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    return model

def make_dataset():
    # A new shuffled order every epoch, as training input usually is.
    return (tf.data.Dataset.from_tensor_slices((images, labels))
            .shuffle(len(images), seed=0, reshuffle_each_iteration=True).batch(BATCH))

full_loss = tf_keras.losses.SparseCategoricalCrossentropy(from_logits=True)

class Recorder(tf_keras.callbacks.Callback):
    \"\"\"Loss on the whole dataset after every global step, and the step each fit() started from.\"\"\"
    def __init__(self, points, attempt):
        super().__init__()
        self.points, self.attempt, self.started_at = points, attempt, None
    def on_train_batch_begin(self, batch, logs=None):
        if self.started_at is None:
            self.started_at = int(self.model.optimizer.iterations)
    def on_train_batch_end(self, batch, logs=None):
        step = int(self.model.optimizer.iterations)
        self.points.append([step, float(full_loss(labels, self.model(images))), self.attempt])

class Interrupt(tf_keras.callbacks.Callback):
    \"\"\"Raises right after global step `at`, as a crash would stop the job.\"\"\"
    def __init__(self, at):
        super().__init__()
        self.at = at
    def on_train_batch_end(self, batch, logs=None):
        if int(self.model.optimizer.iterations) == self.at:
            raise RuntimeError(f"interrupted after step {self.at}")"""


def keras_notebook() -> list:
    return header(
        "2 · Keras `Model.fit` + `tf_keras.callbacks.BackupAndRestore`",
        "`BackupAndRestore` is Keras's answer to the Estimator's automatic resume: it backs up the model, "
        "the optimizer and the training position to a directory, and a re-run of `fit` restores them. "
        "Here the same interruption (right after global step 5) hits `fit` twice: with a backup every "
        "epoch, and with `save_freq=3` steps. Then: what was restored, and what was not.\n\n"
        "Runs in the modern environment (newest TensorFlow + tf-keras).",
        MODERN,
        ("tf_keras", "sklearn"),
    ) + [
        code(SCENARIO + "\nSTEPS_PER_EPOCH = 4\nEPOCHS = TOTAL_STEPS // STEPS_PER_EPOCH"),
        code(DATA),
        code(KERAS_SETUP),
        md("The reference: 5 epochs of 4 steps, uninterrupted."),
        code("""\
shutil.rmtree("runs/keras", ignore_errors=True)
reference_points = []
reference = make_model()
reference.fit(make_dataset().repeat(), epochs=EPOCHS, steps_per_epoch=STEPS_PER_EPOCH, verbose=0,
              callbacks=[Recorder(reference_points, "uninterrupted")])
print("steps:", int(reference.optimizer.iterations))"""),
        md("Interrupted, then re-run with a **new** model object (as a restarted job would have): "
           "`BackupAndRestore` restores it."),
        code("""\
def interrupted_fit(save_freq):
    backup_dir = f"runs/keras/backup_{save_freq}"
    points = []
    model = make_model()
    try:
        model.fit(make_dataset().repeat(), epochs=EPOCHS, steps_per_epoch=STEPS_PER_EPOCH, verbose=0,
                  callbacks=[tf_keras.callbacks.BackupAndRestore(backup_dir, save_freq=save_freq),
                             Recorder(points, "before the crash"), Interrupt(INTERRUPT_AT)])
    except RuntimeError as error:
        print(error, "| backup on disk:", sorted(os.listdir(backup_dir)))
    model = make_model()   # the restarted job starts from fresh objects
    recorder = Recorder(points, "after the restore")
    model.fit(make_dataset().repeat(), epochs=EPOCHS, steps_per_epoch=STEPS_PER_EPOCH, verbose=0,
              callbacks=[tf_keras.callbacks.BackupAndRestore(backup_dir, save_freq=save_freq), recorder])
    print(f"save_freq={save_freq!r}: resumed at step {recorder.started_at}, "
          f"finished at {int(model.optimizer.iterations)}")
    return model, points, recorder.started_at

by_epoch, epoch_points, epoch_resumed = interrupted_fit("epoch")
by_steps, step_points, step_resumed = interrupted_fit(SAVE_EVERY)"""),
        md("**What is restored:** weights, optimizer slots, `optimizer.iterations`, the epoch and (with "
           "`save_freq=N`) the step within it. **What is not:** the position in the data. The resumed "
           "epoch starts a fresh pass over a freshly shuffled dataset, so its first batches are not the "
           "ones the crashed run would have seen next; and no random-number state is saved (dropout or "
           "augmentation would draw differently). The weights therefore end up close to, but not equal "
           "to, the uninterrupted run's:"),
        code("""\
def max_weight_difference(a, b):
    return max(float(abs(x - y).max()) for x, y in zip(a.get_weights(), b.get_weights()))

difference_epoch = max_weight_difference(by_epoch, reference)
difference_steps = max_weight_difference(by_steps, reference)
print(f"max |w - w_uninterrupted|: save_freq='epoch' {difference_epoch:.2e}, save_freq=3 {difference_steps:.2e}")"""),
        code("""\
results = {
    "resumed_at": {"epoch": epoch_resumed, "steps": step_resumed},
    "final_step": {"epoch": int(by_epoch.optimizer.iterations), "steps": int(by_steps.optimizer.iterations)},
    "max_weight_difference": {"epoch": difference_epoch, "steps": difference_steps},
    "curves": {"uninterrupted": reference_points, "save_freq=epoch": epoch_points, "save_freq=3": step_points},
}
""" + RESULTS.format(name="02_keras_backup_and_restore")),
    ]


LOOP_SETUP = """\
import os, shutil
import tensorflow as tf
import tf_keras

def make_state(directory):
    \"\"\"Model, optimizer, data iterator, and the checkpoint that holds all of them.\"\"\"
    tf_keras.utils.set_random_seed(42)
    model = tf_keras.Sequential([
        tf_keras.layers.Flatten(input_shape=(8, 8)),
        tf_keras.layers.Dense(32, activation="relu"),
        tf_keras.layers.Dense(16, activation="relu"),
        tf_keras.layers.Dense(10),
    ])
    optimizer = tf_keras.optimizers.Adam(0.01)
    dataset = (tf.data.Dataset.from_tensor_slices((images, labels))
               .shuffle(len(images), seed=0, reshuffle_each_iteration=True).batch(BATCH).repeat())
    iterator = iter(dataset)
    checkpoint = tf.train.Checkpoint(model=model, optimizer=optimizer, iterator=iterator)
    manager = tf.train.CheckpointManager(checkpoint, directory, max_to_keep=2,
                                         step_counter=optimizer.iterations, checkpoint_interval=SAVE_EVERY)
    return model, optimizer, iterator, checkpoint, manager

loss_fn = tf_keras.losses.SparseCategoricalCrossentropy(from_logits=True)

def train(directory, points, attempt, interrupt_at=None):
    model, optimizer, iterator, checkpoint, manager = make_state(directory)
    checkpoint.restore(manager.latest_checkpoint)       # restore done right: None -> fresh start
    started_at = int(optimizer.iterations)

    @tf.function
    def step(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))

    while int(optimizer.iterations) < TOTAL_STEPS:
        x, y = next(iterator)
        step(x, y)
        manager.save(checkpoint_number=optimizer.iterations)   # writes only every SAVE_EVERY steps
        points.append([int(optimizer.iterations), float(loss_fn(labels, model(images))), attempt])
        if int(optimizer.iterations) == interrupt_at:
            raise RuntimeError(f"interrupted after step {interrupt_at}")
    manager.save(checkpoint_number=optimizer.iterations, check_interval=False)   # and the final state
    return model, int(optimizer.iterations), started_at"""


def loop_notebook() -> list:
    return header(
        "3 · Custom loop + `tf.train.Checkpoint` + `tf.train.CheckpointManager`",
        "A custom training loop decides itself what a checkpoint holds. Put the **data iterator** in "
        "`tf.train.Checkpoint` next to the model and the optimizer, and a resumed run continues with "
        "exactly the batch the crashed one would have taken next: the result is bit-identical to an "
        "uninterrupted run. `CheckpointManager` adds the cadence (`checkpoint_interval`) and the "
        "clean-up (`max_to_keep`).\n\nRuns in the modern environment (newest TensorFlow + tf-keras).",
        MODERN,
        ("tf_keras", "sklearn"),
    ) + [
        code(SCENARIO),
        code(DATA),
        code(LOOP_SETUP),
        code("""\
shutil.rmtree("runs/loop", ignore_errors=True)
reference_points = []
reference, reference_steps, _ = train("runs/loop/uninterrupted", reference_points, "uninterrupted")
print("steps:", reference_steps)"""),
        md("Interrupted right after step 5, then restarted from fresh objects:"),
        code("""\
points = []
try:
    train("runs/loop/interrupted", points, "before the crash", interrupt_at=INTERRUPT_AT)
except RuntimeError as error:
    print(error)
print("kept:", sorted(f for f in os.listdir("runs/loop/interrupted") if f.endswith(".index")))
resumed, final_step, started_at = train("runs/loop/interrupted", points, "after the restore")
print("resumed at step", started_at, "and finished at", final_step)
print("kept at the end (max_to_keep=2):",
      sorted(f for f in os.listdir("runs/loop/interrupted") if f.endswith(".index")))"""),
        md("Model, optimizer and data position all came back, so the final weights are **equal** to the "
           "uninterrupted run's, not merely close:"),
        code("""\
difference = max(float(abs(a - b).max()) for a, b in zip(resumed.get_weights(), reference.get_weights()))
print("max |w - w_uninterrupted| =", difference)"""),
        md("A common mistake (TensorFlow's own guide makes it): `tf.train.load_checkpoint` returns a "
           "*reader*. It restores nothing into the model; `checkpoint.restore(...)` does."),
        code("""\
model, optimizer, iterator, checkpoint, manager = make_state("runs/loop/interrupted")
reader = tf.train.load_checkpoint(manager.latest_checkpoint)
print("after load_checkpoint: optimizer.iterations =", int(optimizer.iterations))
checkpoint.restore(manager.latest_checkpoint)
print("after checkpoint.restore: optimizer.iterations =", int(optimizer.iterations))"""),
        code("""\
results = {
    "resumed_at": started_at,
    "final_step": final_step,
    "max_weight_difference": difference,
    "kept_checkpoints": sorted(f for f in os.listdir("runs/loop/interrupted") if f.endswith(".index")),
    "curves": {"uninterrupted": reference_points, "interrupted": points},
}
""" + RESULTS.format(name="03_custom_loop_checkpoint_manager")),
    ]


SIDE_BY_SIDE_CONTINUE = """\
import numpy as np, tensorflow as tf
from sklearn.datasets import load_digits
from estimator_migrate.compat.convert import load_canned

digits = load_digits()
images = (digits.images / 16.0).astype(np.float32)
labels = digits.target.astype(np.int32)

conversion = load_canned("runs/estimator/after_kill")   # the model with weights, Adam slots and step
model = conversion.model
print(conversion.estimator.estimator_name, "-> continuing at step", int(model.optimizer.iterations) + 1)
batches = iter(tf.data.Dataset.from_tensor_slices(({"x": images}, labels))
               .shuffle(len(images), seed=0).repeat().batch(BATCH))
migrated_points = []
while int(model.optimizer.iterations) < TOTAL_STEPS:
    features, batch_labels = next(batches)
    loss = model.train_on_batch(features, batch_labels, return_dict=True)["loss"]   # v1 head: summed over the batch
    migrated_points.append([int(model.optimizer.iterations), float(loss)])
print("steps trained in Keras:", [step for step, _ in migrated_points])"""

EXACT_FIT = """\
from estimator_migrate.compat.exact import ExactBackupAndRestore

STEPS_PER_EPOCH = 4
EPOCHS = TOTAL_STEPS // STEPS_PER_EPOCH
tf_keras.backend.experimental.enable_tf_random_generator()   # dropout would draw from a checkpointed generator

def exact_fit(model, callbacks):
    model.fit(make_dataset().repeat(), epochs=EPOCHS, steps_per_epoch=STEPS_PER_EPOCH, verbose=0,
              callbacks=[ExactBackupAndRestore("runs/exact/backup", save_freq=SAVE_EVERY), *callbacks])

shutil.rmtree("runs/exact", ignore_errors=True)
exact_points = []
try:
    exact_fit(make_model(), [Recorder(exact_points, "before the crash"), Interrupt(INTERRUPT_AT)])
except RuntimeError as error:
    print(error, "| backup on disk:", sorted(os.listdir("runs/exact/backup")))
exact_model, recorder = make_model(), Recorder(exact_points, "after the restore")   # a restarted job: new objects
exact_fit(exact_model, [recorder])
exact_resumed = recorder.started_at

exact_reference, exact_reference_points = make_model(), []
exact_reference.fit(make_dataset().repeat(), epochs=EPOCHS, steps_per_epoch=STEPS_PER_EPOCH, verbose=0,
                    callbacks=[Recorder(exact_reference_points, "uninterrupted")])
exact_difference = max(float(abs(a - b).max()) for a, b in zip(exact_model.get_weights(), exact_reference.get_weights()))
print(f"resumed at step {exact_resumed}, finished at {int(exact_model.optimizer.iterations)}; "
      f"max |w - w_uninterrupted| = {exact_difference}")"""

SIDE_BY_SIDE_TABLE = """\
def resumed_curve(points, resumed_at):
    \"\"\"Loss per global step of an interrupted run as it ended up: before the resume point from the
    crashed attempt, after it from the restored one (the steps in between were trained twice).\"\"\"
    curve = {}
    for point in points:
        if point[0] <= resumed_at or (len(point) > 2 and point[2] != "before the crash"):
            curve[point[0]] = point[1]
    return curve

def compare(uninterrupted, resumed):
    steps = sorted(set(uninterrupted) & set(resumed))
    return max(abs(uninterrupted[s] - resumed[s]) for s in steps)

estimator, keras, loop = (results_of[name] for name in NAMES)
rows = {
    "Estimator": (estimator["step_after_kill"], estimator["max_weight_difference"],
                  dict(estimator["curves"]["uninterrupted"]), dict(estimator["curves"]["interrupted"])),
    "Keras BackupAndRestore, per epoch": (keras["resumed_at"]["epoch"], keras["max_weight_difference"]["epoch"],
        {p[0]: p[1] for p in keras["curves"]["uninterrupted"]},
        resumed_curve(keras["curves"]["save_freq=epoch"], keras["resumed_at"]["epoch"])),
    "Keras BackupAndRestore, save_freq=3": (keras["resumed_at"]["steps"], keras["max_weight_difference"]["steps"],
        {p[0]: p[1] for p in keras["curves"]["uninterrupted"]},
        resumed_curve(keras["curves"]["save_freq=3"], keras["resumed_at"]["steps"])),
    "Custom loop + CheckpointManager": (loop["resumed_at"], loop["max_weight_difference"],
        {p[0]: p[1] for p in loop["curves"]["uninterrupted"]},
        resumed_curve(loop["curves"]["interrupted"], loop["resumed_at"])),
    "Keras ExactBackupAndRestore, save_freq=3": (exact_resumed, exact_difference,
        {p[0]: p[1] for p in exact_reference_points}, resumed_curve(exact_points, exact_resumed)),
}
print(f"{'mechanism':42} {'resumed from':>12} {'steps redone':>12} {'max |dw| at the end':>20} {'max |dloss|':>12}")
table = {}
for name, (resumed_at, dw, uninterrupted, resumed) in rows.items():
    table[name] = {"resumed_at": resumed_at, "redone": INTERRUPT_AT - resumed_at, "max_weight_difference": dw,
                   "max_loss_difference": compare(uninterrupted, resumed)}
    row = table[name]
    print(f"{name:42} {resumed_at:12d} {row['redone']:12d} {dw:20.2e} {row['max_loss_difference']:12.2e}")"""

SIDE_BY_SIDE_PLOT = """\
import matplotlib.pyplot as plt

figure, axes = plt.subplots(1, len(rows), figsize=(3.8 * len(rows), 3.6), sharex=True)
for axis, (name, (resumed_at, _, uninterrupted, resumed)) in zip(axes, rows.items()):
    axis.plot(sorted(uninterrupted), [uninterrupted[s] for s in sorted(uninterrupted)], "o-", label="uninterrupted")
    axis.plot(sorted(resumed), [resumed[s] for s in sorted(resumed)], "x--", label="interrupted + resumed")
    if name == "Estimator":
        axis.plot([s for s, _ in migrated_points], [l for _, l in migrated_points], "s:", label="converted, in Keras")
    axis.axvline(INTERRUPT_AT, color="red", linewidth=0.8)
    axis.set_title(name, fontsize=9)
    axis.set_xlabel("global step")
    axis.legend(fontsize=7)
axes[0].set_ylabel("loss (Estimator: batch, summed; others: whole dataset)")
figure.tight_layout()
figure.savefig("runs/results/side_by_side.png", dpi=80)
plt.show()"""


def side_by_side_notebook() -> list:
    return header(
        "4 · Side by side, and the migration",
        "The three mechanisms of notebooks 1-3 on the same interruption, compared; then the migration "
        "itself: `migrate rewrite` on notebook 1's Estimator program, and `migrate convert-checkpoint` on "
        "the `model_dir` its crash left, continued in Keras from the Estimator's step.\n\n"
        "Run notebooks 1, 2 and 3 first, in the same directory: this one reads their `runs/`. It runs in "
        "the modern environment with this project installed (`make env`).",
        MODERN,
        ("tf_keras", "sklearn", "matplotlib", "migrate", "estimator_migrate"),
    ) + [
        code(SCENARIO + """
import json, os, subprocess, sys
from pathlib import Path

NAMES = ("01_estimator", "02_keras_backup_and_restore", "03_custom_loop_checkpoint_manager")
missing = [name for name in NAMES if not os.path.exists(f"runs/results/{name}.json")]
assert not missing, f"run these notebooks first, in this directory: {missing}"
results_of = {name: json.load(open(f"runs/results/{name}.json")) for name in NAMES}
MIGRATE = str(Path(sys.executable).parent / "migrate")   # the project's command-line tool

def migrate(*arguments):
    completed = subprocess.run([MIGRATE, *arguments], capture_output=True, text=True,
                               env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"})
    print(completed.stdout, completed.stderr.strip().splitlines()[-1] if completed.stderr.strip() else "")
    return completed"""),
        md("## The code: `migrate rewrite`\n\nNotebook 1's program, rewritten for `Model.fit` + "
           "`BackupAndRestore` (the default `--target keras`):"),
        code('keras_diff = migrate("rewrite", "runs/estimator_program.py", "--diff").stdout'),
        md("...or for a custom loop with `tf.train.CheckpointManager` (`--target loop`):"),
        code('loop_diff = migrate("rewrite", "runs/estimator_program.py", "--diff", "--target", "loop").stdout'),
        md("## The checkpoint: `migrate convert-checkpoint`\n\nWhat the crash left in `model_dir`, as the "
           "converter recognises it:"),
        code('inspected = migrate("inspect-checkpoint", "runs/estimator/after_kill")'),
        code("""\
import shutil
shutil.rmtree("runs/migration", ignore_errors=True)
migrate("convert-checkpoint", "runs/estimator/after_kill", "--out", "runs/migration/converted")
print(sorted(os.listdir("runs/migration/converted")))"""),
        md("Training continues **in Keras, from the Estimator's step**: the converted model holds the "
           "Estimator's weights, its Adam slots and `optimizer.iterations = 3`, so step 4 comes next."),
        code(SIDE_BY_SIDE_CONTINUE),
        md("## Exact resume for `fit`: `compat.exact.ExactBackupAndRestore`\n\nNotebook 2's scenario "
           "once more (same model, data, cadence and interruption), with the project's drop-in for "
           "`BackupAndRestore`. Its backups also hold the data iterator (position, shuffle buffer, the "
           "seeds of later epochs) and the random generators, so the resumed `fit` continues with the "
           "batches the crashed one would have seen next (see `docs/exact-resume.md`)."),
        code(KERAS_SETUP),
        code(EXACT_FIT),
        md("## Side by side\n\nFor each mechanism: where the resumed run restarted, how many steps were "
           "trained twice, and how far its final weights and its loss curve end up from the uninterrupted "
           "run's. The two that checkpoint the data position coincide exactly: the custom loop with its "
           "iterator in the checkpoint, and `fit` with `ExactBackupAndRestore`."),
        code(SIDE_BY_SIDE_TABLE),
        code(SIDE_BY_SIDE_PLOT),
        code("""\
results = {
    "table": table,
    "keras_diff_has": {word: word in keras_diff for word in ("BackupAndRestore", "CheckpointManager")},
    "loop_diff_has": {word: word in loop_diff for word in ("CheckpointManager", "GradientTape")},
    "converted_files": sorted(os.listdir("runs/migration/converted")),
    "migrated_steps": [step for step, _ in migrated_points],
    "exact_resumed_at": exact_resumed,
}
""" + RESULTS.format(name="04_side_by_side_and_migration")),
    ]


TUNE_PROGRAM = '''\
%%writefile runs/tune/estimator_program.py
"""A DNNClassifier on digits with its learning rate as a flag, the way Estimator programs were tuned: one run
per value, each in a model_dir of its own, a checkpoint every 10 steps."""
import argparse

import numpy as np
import tensorflow as tf
from sklearn.datasets import load_digits


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", required=True)
    parser.add_argument("--learning_rate", type=float, default=0.05)
    parser.add_argument("--max_steps", type=int, default=60)
    args = parser.parse_args()

    digits = load_digits()
    x = (digits.images.reshape(-1, 64) / 16.0).astype(np.float32)
    y = digits.target.astype(np.int32)
    classifier = tf.estimator.DNNClassifier(
        feature_columns=[tf.feature_column.numeric_column("x", shape=[64])],
        hidden_units=[32, 16],
        n_classes=10,
        dropout=0.1,
        optimizer=tf.compat.v1.train.AdagradOptimizer(learning_rate=args.learning_rate),
        model_dir=args.model_dir,
        config=tf.estimator.RunConfig(save_checkpoints_steps=10, tf_random_seed=7),
    )
    train_input_fn = tf.compat.v1.estimator.inputs.numpy_input_fn(
        x={"x": x}, y=y, batch_size=32, num_epochs=None, shuffle=True)
    classifier.train(input_fn=train_input_fn, max_steps=args.max_steps)
    eval_input_fn = tf.compat.v1.estimator.inputs.numpy_input_fn(x={"x": x}, y=y, batch_size=256, shuffle=False)
    print(classifier.evaluate(input_fn=eval_input_fn))


if __name__ == "__main__":
    main()'''

TUNE_SEARCH = """\
import ray
from ray import tune
from estimator_migrate.compat import backup_listeners, ray_checkpoints

class KillAfterBackup:
    \"\"\"The crash: SIGKILLs the trial's process once its backup at `step` is on disk, before Tune hears of it.\"\"\"
    def __init__(self, step):
        self.step = step
    def after_backup(self, backup_dir, step, logs):
        if step == self.step:
            os.kill(os.getpid(), signal.SIGKILL)
    def after_evaluation(self, metrics):
        pass

program = ray_checkpoints.program_trainable(PROGRAM, arguments=["--max_steps", str(TOTAL_STEPS)])

def trainable(config):
    if config["learning_rate"] == FAILING_RATE and tune.get_checkpoint() is None:   # its first attempt only
        with backup_listeners.listening(KillAfterBackup(KILL_AT)):
            return program(config)
    return program(config)

class Reports(tune.Callback):
    \"\"\"What Tune heard from each trial, in order: (global step, loss, attempt), attempt 0 before any restart.\"\"\"
    def __init__(self):
        self.points, self.restarts = {}, {}
    def on_trial_recover(self, iteration, trials, trial, **info):
        rate = trial.config["learning_rate"]
        self.restarts[rate] = self.restarts.get(rate, 0) + 1
    def on_trial_result(self, iteration, trials, trial, result, **info):
        rate = trial.config["learning_rate"]
        if "loss" in result:
            attempt = self.restarts.get(rate, 0)
            self.points.setdefault(rate, []).append([result["global_step"], result["loss"], attempt])

reports = Reports()
ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
tuner = tune.Tuner(
    trainable,
    param_space={"learning_rate": tune.grid_search(RATES)},
    run_config=tune.RunConfig(name="search", storage_path=os.path.abspath("runs/tune/storage"), verbose=0,
                              failure_config=tune.FailureConfig(max_failures=1), callbacks=[reports]),
)
grid = tuner.fit()
for result in grid:
    print(result.config, "global_step", result.metrics["global_step"],
          "accuracy", round(result.metrics["eval"]["accuracy"], 3), "error", result.error)"""

TUNE_CURVES = """\
curves = reports.points
failed = curves[FAILING_RATE]
restarted_at = min(step for step, _, attempt in failed if attempt == 1)
print("the failed trial reported", [step for step, _, attempt in failed if attempt == 0],
      "then, restarted by Tune from its checkpoint of step", restarted_at - 10, ":",
      [step for step, _, attempt in failed if attempt == 1])"""

TUNE_PLOT = """\
import matplotlib.pyplot as plt

figure, axis = plt.subplots(figsize=(6.4, 3.8))
for rate, points in sorted(curves.items()):
    first = [(s, l) for s, l, attempt in points if attempt == 0]
    label = f"learning_rate={rate}"
    line, = axis.plot(*zip(*first), "o-", label=label + (" (first attempt)" if rate == FAILING_RATE else ""))
    later = [(s, l) for s, l, attempt in points if attempt == 1]
    if later:
        axis.plot(*zip(*later), "x--", color=line.get_color(), label=label + ", restarted by Tune")
axis.axvline(KILL_AT, color="red", linewidth=0.8)
axis.set_xlabel("global step")
axis.set_ylabel("training loss at each checkpoint")
axis.legend(fontsize=8)
figure.tight_layout()
figure.savefig("runs/results/ray_tune.png", dpi=80)
plt.show()"""

TUNE_TWIN = """\
import numpy as np
import tensorflow as tf

def final_weights(directory):
    reader = tf.train.load_checkpoint(tf.train.latest_checkpoint(directory))
    return {name: reader.get_tensor(name) for name in reader.get_variable_to_shape_map()
            if name != "_CHECKPOINTABLE_OBJECT_GRAPH"}

shutil.rmtree("runs/tune/twin", ignore_errors=True)
subprocess.run([sys.executable, PROGRAM, "--model_dir", "runs/tune/twin", "--max_steps", str(TOTAL_STEPS),
                "--learning_rate", str(FAILING_RATE)], check=True, capture_output=True,
               env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"})
failed_result = next(result for result in grid if result.config["learning_rate"] == FAILING_RATE)
trial, twin = final_weights(failed_result.checkpoint.path), final_weights("runs/tune/twin")
twin_difference = max(float(np.abs(trial[name] - twin[name]).max()) for name in twin)
print("max |w_trial - w_uninterrupted| =", twin_difference)"""


TRAIN_WORKERS = """\
from ray import train
from ray.train.tensorflow import TensorflowTrainer

trainer = TensorflowTrainer(
    ray_checkpoints.program_train_loop(WORKERS_PROGRAM, arguments=["--max_steps", str(TOTAL_STEPS)],
                                       work_dir=os.path.abspath("runs/train/work")),
    train_loop_config={"learning_rate": 0.1},
    scaling_config=train.ScalingConfig(num_workers=2),
    run_config=train.RunConfig(name="workers", storage_path=os.path.abspath("runs/train/storage"),
                               failure_config=train.FailureConfig(max_failures=1)),
)
workers_result = trainer.fit()
print("global_step", workers_result.metrics["global_step"], "accuracy",
      round(workers_result.metrics["eval"]["accuracy"], 3))
print("checkpoint (rank 0's model_dir):", sorted(os.listdir(workers_result.checkpoint.path)))"""


def ray_notebook() -> list:
    return header(
        "5 · Ray Tune: a migrated Estimator program as trials that fail and resume",
        "Estimator programs were tuned by running them once per hyperparameter value, each in a model_dir of "
        "its own. Migrated, the same program runs as a **Ray Tune trial** as it is: "
        "`compat.ray_checkpoints.program_trainable` passes each trial's config as flags, reports every backup "
        "the program makes at its RunConfig's cadence as the trial's checkpoint, and a trial Tune restarts "
        "goes on from its last reported checkpoint. With `migrate rewrite --exact` it goes on bit-exactly.\n\n"
        "Here: three learning rates on a local Ray cluster; the trial with 0.05 is **killed** (SIGKILL) right "
        "after its backup at step 30, before Tune hears of it; `FailureConfig(max_failures=1)` restarts it. "
        "Then the same kind of program trained by two data-parallel workers with Ray Train's "
        "`TensorflowTrainer`. It runs in the modern environment with this project and its `ray` extra "
        "installed (`make env`).",
        MODERN,
        ("tf_keras", "sklearn", "matplotlib", "ray", "migrate", "estimator_migrate"),
    ) + [
        code("""\
TOTAL_STEPS = 60          # steps of each trial; a checkpoint every 10 (the program's RunConfig)
RATES = [0.02, 0.05, 0.1]
FAILING_RATE = 0.05       # this trial's process is killed...
KILL_AT = 30              # ...right after its backup at this step is written
import os, shutil, signal, subprocess, sys
from pathlib import Path
shutil.rmtree("runs/tune", ignore_errors=True)
os.makedirs("runs/tune", exist_ok=True)
os.makedirs("runs/results", exist_ok=True)"""),
        md("The Estimator program, as it was tuned before: the learning rate is a flag."),
        code(TUNE_PROGRAM),
        md("`migrate rewrite --exact`: `Model.fit` with backups at the RunConfig's cadence that also hold the "
           "data position and the random generators (the Estimator program itself needs the legacy "
           "environment; only its migrated twin runs here)."),
        code("""\
MIGRATE = str(Path(sys.executable).parent / "migrate")
rewrite = subprocess.run([MIGRATE, "rewrite", "runs/tune/estimator_program.py", "--exact", "--out", "runs/tune/migrated"],
                         capture_output=True, text=True)
print(rewrite.stderr.strip().splitlines()[-1])
PROGRAM = os.path.abspath("runs/tune/migrated/estimator_program.py")"""),
        md("The search. `program_trainable` runs the program in each trial's process with `--learning_rate` "
           "from the trial's config and `--model_dir` a directory of the trial's own. `KillAfterBackup` listens "
           "to the program's backups (`compat.backup_listeners`) and plays the crash."),
        code(TUNE_SEARCH),
        md("Each trial reported `global_step`, the training `loss` at each backup and its last evaluation. "
           "The failed trial's reports: up to step 20 before the crash (its backup at 30 was written, never "
           "reported), then, restarted from the checkpoint of step 20, from 30 on."),
        code(TUNE_CURVES),
        code(TUNE_PLOT),
        md("Did the crash change anything? The failed trial's final weights against the same program run "
           "once, uninterrupted, outside Ray:"),
        code(TUNE_TWIN),
        md("## Ray Train: the program's workers\n\nAn Estimator program trained by several workers in step had "
           "`RunConfig(train_distribute=MultiWorkerMirroredStrategy())`. Migrated, it runs as the workers of "
           "Ray Train's `TensorflowTrainer`, which starts them and sets each one's `TF_CONFIG`: "
           "`program_train_loop` runs the program on every worker in a model_dir of its own, every worker reports "
           "at each backup (Ray's report is a barrier), rank 0's model_dir is the checkpoint, and a worker group "
           "Ray restarts after a failure starts from the latest one. Migrated with `--exact`, the restarted workers "
           "go on bit-exactly, as a Tune trial does (tests/test_ray_train.py kills a worker and compares the "
           "weights with an uninterrupted run's)."),
        code("""\
workers_source = open("runs/tune/estimator_program.py").read().replace(
    "config=tf.estimator.RunConfig(save_checkpoints_steps=10, tf_random_seed=7)",
    "config=tf.estimator.RunConfig(save_checkpoints_steps=10, tf_random_seed=7,\\n"
    "                                      train_distribute=tf.distribute.experimental.MultiWorkerMirroredStrategy())")
os.makedirs("runs/train", exist_ok=True)
with open("runs/train/estimator_program.py", "w") as program_file:
    program_file.write(workers_source)
rewrite = subprocess.run([MIGRATE, "rewrite", "runs/train/estimator_program.py", "--out", "runs/train/migrated",
                          "--exact"], capture_output=True, text=True)
print(rewrite.stderr.strip().splitlines()[-1])
WORKERS_PROGRAM = os.path.abspath("runs/train/migrated/estimator_program.py")"""),
        code(TRAIN_WORKERS),
        code("""\
ray.shutdown()
results = {
    "final_steps": {str(result.config["learning_rate"]): result.metrics["global_step"] for result in grid},
    "errors": [str(result.error) for result in grid if result.error is not None],
    "accuracy": {str(result.config["learning_rate"]): result.metrics["eval"]["accuracy"] for result in grid},
    "curves": {str(rate): points for rate, points in curves.items()},
    "twin_difference": twin_difference,
    "workers": {"global_step": workers_result.metrics["global_step"], "error": str(workers_result.error or ""),
                "checkpoint_files": sorted(os.listdir(workers_result.checkpoint.path))},
}
""" + RESULTS.format(name="05_ray_tune_and_train")),
    ]


NOTEBOOKS = {
    "01_estimator.ipynb": (estimator_notebook, "legacy"),
    "02_keras_backup_and_restore.ipynb": (keras_notebook, "modern"),
    "03_custom_loop_checkpoint_manager.ipynb": (loop_notebook, "modern"),
    "04_side_by_side_and_migration.ipynb": (side_by_side_notebook, "modern"),
    "05_ray_tune_and_train.ipynb": (ray_notebook, "modern"),
}


def build(name: str) -> str:
    notebook = nbformat.v4.new_notebook(cells=NOTEBOOKS[name][0]())
    notebook.metadata = {
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
        "environment": NOTEBOOKS[name][1],
    }
    for index, cell in enumerate(notebook.cells):
        cell["id"] = f"cell-{index}"  # stable ids: rebuilding changes nothing
    return nbformat.writes(notebook) + "\n"


def main() -> None:
    for name in sys.argv[1:] or NOTEBOOKS:
        (HERE / name).write_text(build(name))


if __name__ == "__main__":
    main()
