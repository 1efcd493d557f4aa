"""The demo: rewrite the bundled Estimator program, crash it with SIGKILL, resume it, show the result.

Run with `make demo` (which builds both environments first). The same scenario runs three ways:
the original under real Estimator (legacy environment), and the program `migrate rewrite` produced for
each target under current TensorFlow. Each run is killed by SIGKILL right after its checkpoint of step
`--interrupt_at`+1 (the program's own hook does it), then started again with the same arguments.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np

from migrate.quiet import VERBOSE, quiet_environment, quiet_tensorflow

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "digits_estimator.py"
LEGACY_PYTHON = ROOT / ".venv-legacy" / "bin" / "python"
MIGRATE = Path(sys.executable).parent / "migrate"


def checkpoint_step(directory: Path) -> int | None:
    """The step of the latest checkpoint in `directory`: Estimator `global_step` or Keras optimizer iterations."""
    import tensorflow as tf

    prefix = tf.train.latest_checkpoint(str(directory))
    if prefix is None:
        return None
    reader = tf.train.load_checkpoint(prefix)
    for name in reader.get_variable_to_shape_map():
        if name in ("global_step", "step/.ATTRIBUTES/VARIABLE_VALUE") or name.endswith(
            "optimizer/_iterations/.ATTRIBUTES/VARIABLE_VALUE"
        ):
            return int(reader.get_tensor(name))
    return None


def run_program(python: Path, program: Path, model_dir: Path, args: list[str]) -> int:
    command = [str(python), str(program), "--model_dir", str(model_dir), *args]
    completed = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                               env=quiet_environment(dict(os.environ)))
    if completed.returncode not in (0, -9):
        sys.stderr.write(completed.stderr[-3000:])
        raise SystemExit(f"demo: {program.name} failed with exit code {completed.returncode}")
    return completed.returncode


def accuracy_of_final_checkpoint(model_dir: Path) -> tuple[int, float]:
    """Rebuild the migrated model, restore model_dir's final checkpoint, score it on all of digits."""
    import tensorflow as tf
    import tf_keras
    from sklearn.datasets import load_digits

    from estimator_migrate.compat import canned

    digits = load_digits()
    columns = [tf.compat.v1.feature_column.numeric_column("x", shape=[8, 8])]
    optimizer = tf_keras.optimizers.Adam(learning_rate=0.001, epsilon=1e-08)
    model = canned.dnn_classifier(
        columns, hidden_units=[256, 32], n_classes=10, dropout=0.2, optimizer=optimizer
    )
    tf.train.Checkpoint(model=model, optimizer=model.optimizer).restore(
        tf.train.latest_checkpoint(str(model_dir))
    ).expect_partial()
    logits = model.predict({"x": (digits.images / 16.0).astype(np.float32)}, verbose=0)
    return int(model.optimizer.iterations), float(np.mean(np.argmax(logits, axis=1) == digits.target))


def scenario(name: str, python: Path, program: Path, model_dir: Path, flags: list[str], backup: Path) -> dict:
    first = run_program(python, program, model_dir, flags)
    resumed_from = checkpoint_step(backup)
    second = run_program(python, program, model_dir, flags)
    row = {
        "name": name,
        "first_exit": first,
        "resumed_from": resumed_from,
        "final_step": checkpoint_step(model_dir),
        "second_exit": second,
    }
    print(
        f"  {name:<34} run 1 exit {first} (SIGKILL = -9), latest checkpoint at step {resumed_from}; "
        f"run 2 exit {second}, final checkpoint at step {row['final_step']}"
    )
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--workdir", type=Path, default=ROOT / "demo_run")
    parser.add_argument("--max_steps", type=int, default=200)
    parser.add_argument("--interrupt_at", type=int, default=100)
    parser.add_argument("--verbose", action="store_true", help=f"let TensorFlow print its own log lines (or {VERBOSE}=1)")
    args = parser.parse_args()
    if args.verbose:
        os.environ[VERBOSE] = "1"
    quiet_tensorflow()
    flags = ["--max_steps", str(args.max_steps), "--interrupt_at", str(args.interrupt_at)]

    shutil.rmtree(args.workdir, ignore_errors=True)
    source = args.workdir / "original"
    source.mkdir(parents=True)
    shutil.copy2(EXAMPLE, source / EXAMPLE.name)

    print(f"1. migrate rewrite {EXAMPLE.relative_to(ROOT)} (targets keras and loop)")
    for target in ("keras", "loop"):
        subprocess.run(
            [
                str(MIGRATE),
                "rewrite",
                str(source),
                "--target",
                target,
                "--out",
                str(args.workdir / target),
                "--report",
                str(args.workdir / f"{target}.json"),
            ],
            check=True,
        )
    diff = subprocess.run([str(MIGRATE), "rewrite", "--diff", str(source)], capture_output=True, text=True)
    print("\n".join("   " + line for line in diff.stdout.splitlines()[:40]) + "\n   ...")

    print(
        f"\n2. train to step {args.max_steps}, SIGKILL after checkpoint {args.interrupt_at + 1}, run again:"
    )
    rows = []
    if LEGACY_PYTHON.exists():
        model_dir = args.workdir / "model_estimator"
        rows.append(
            scenario(
                "Estimator (TF 2.15, original)",
                LEGACY_PYTHON,
                source / EXAMPLE.name,
                model_dir,
                flags,
                model_dir,
            )
        )
    else:
        print("  (no .venv-legacy: skipping the original Estimator run; `make env-legacy` builds it)")
    for target, label in (
        ("keras", "migrated, keras (fit+BackupAndRestore)"),
        ("loop", "migrated, loop (CheckpointManager)"),
    ):
        model_dir = args.workdir / f"model_{target}"
        backup = model_dir / "backup" / "chief" if target == "keras" else model_dir
        rows.append(
            scenario(
                label, Path(sys.executable), args.workdir / target / EXAMPLE.name, model_dir, flags, backup
            )
        )

    print("\n3. final state of the migrated runs (all 1797 digits):")
    for target in ("keras", "loop"):
        step, accuracy = accuracy_of_final_checkpoint(args.workdir / f"model_{target}")
        print(f"  {target:<6} step {step}, accuracy {accuracy:.3f}")
    same = {row["final_step"] for row in rows} == {args.max_steps}
    print(f"\nAll runs resumed after SIGKILL and ended at step {args.max_steps}: {'yes' if same else 'NO'}")
    raise SystemExit(0 if same else 1)


if __name__ == "__main__":
    main()
