"""`migrate inspect-checkpoint` and `migrate convert-checkpoint`: the command-line side of `compat`.

TensorFlow is imported only when one of these commands runs, so `scan` and `rewrite` stay light.
"""

from __future__ import annotations

import json
import sys
from dataclasses import asdict


def inspection(path: str) -> dict:
    """Everything `inspect-checkpoint` reports about a model_dir or a checkpoint prefix, as plain data."""
    from estimator_migrate.compat.legacy_checkpoint import CheckpointError, LegacyCheckpoint, read_state
    from estimator_migrate.compat.recognise import recognise

    checkpoint = LegacyCheckpoint(path)
    model_dir = checkpoint.prefix.parent
    try:
        state = read_state(model_dir)
        listed = [str(p.name) for p in state.all_paths]
        latest = state.latest.name
    except CheckpointError:
        listed, latest = [], None
    report = {
        "checkpoint": str(checkpoint.prefix),
        "global_step": checkpoint.global_step,
        "state_file": {"latest": latest, "all": listed},
        "variables": [
            {"name": name, "shape": list(shape), "dtype": checkpoint.dtypes[name].name}
            for name, shape in sorted(checkpoint.shapes.items())
        ],
    }
    try:
        estimator = recognise(checkpoint)
    except CheckpointError as error:
        report["recognised"] = None
        report["not_recognised_because"] = str(error)
        return report
    recognised = asdict(estimator)
    recognised["estimator"] = estimator.estimator_name
    recognised["n_classes"] = estimator.n_classes
    recognised["label_dimension"] = estimator.label_dimension
    recognised["features"] = {part: {k: list(v) for k, v in f.items()} for part, f in estimator.features.items()}
    report["recognised"] = recognised
    return report


def _print_inspection(report: dict) -> None:
    print(f"checkpoint: {report['checkpoint']}")
    print(f"global_step: {report['global_step']}")
    state = report["state_file"]
    if state["all"]:
        print(f"state file lists: {', '.join(state['all'])} (latest: {state['latest']})")
    recognised = report["recognised"]
    if recognised is None:
        print(f"recognised: nothing ({report['not_recognised_because']})")
    else:
        head = "v1 head, loss summed over the batch" if recognised["head"] == "v1" else "v2 head, loss averaged"
        size = (f"n_classes {recognised['n_classes']}" if recognised["task"] == "classifier"
                else f"label_dimension {recognised['label_dimension']}")
        print(f"recognised: {recognised['estimator']} ({head}), {size}")
        if recognised["family"] != "linear":
            norm = ", batch normalisation after each" if recognised.get("batch_norm") else ""
            print(f"  hidden units {recognised['hidden_units']}{norm}, activation {recognised['activation']}")
        for part, features in recognised["features"].items():
            listed = ", ".join(f"{k} {tuple(v)}" for k, v in features.items())
            print(f"  {part} features (numeric, concatenated in this order): {listed}")
        for part, optimizer in recognised["optimizers"].items():
            hyper = ", ".join(f"{k}={v:g}" for k, v in sorted(optimizer["hyper"].items()))
            slots = sorted({s for per_var in optimizer["slots"].values() for s in per_var})
            print(f"  {part} optimizer: {optimizer['kind']} ({hyper or 'defaults'}); "
                  f"slots {', '.join(slots) or 'none'} on {len(optimizer['slots'])} variables")
    print(f"variables ({len(report['variables'])}):")
    for variable in report["variables"]:
        print(f"  {variable['name']}  {variable['dtype']}  {variable['shape']}")


def inspect_command(path: str, as_json: bool) -> int:
    report = inspection(path)
    if as_json:
        json.dump(report, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        _print_inspection(report)
    return 0


def convert_command(path: str, out: str | None) -> int:
    from estimator_migrate.compat.convert import convert_checkpoint

    conversion, written = convert_checkpoint(path, out)
    estimator = conversion.estimator
    print(
        f"migrate: converted {estimator.estimator_name} at global_step {estimator.global_step} into {written} "
        f"(model.keras and ckpt-{estimator.global_step}; migrated programs resume at step "
        f"{estimator.global_step + 1})",
        file=sys.stderr,
    )
    for note in conversion.notes:
        print(f"migrate: note: {note}", file=sys.stderr)
    return 0
