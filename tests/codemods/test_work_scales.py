"""The rewrite's work grows linearly with the module: counted in node visits (LibCST's visitors, m.findall
included, and codemods.syntax's walks), not in seconds, so a search over a subtree per node fails here the day it
comes in, on any machine.

Two shapes: functions nested ever deeper (a search below every definition walks the nested ones again: it was
quadratic in the nesting), and large real modules from ../shared/corpus doubled (a second copy beside the first,
its module-level names renamed so that nothing is bound twice).
"""

from __future__ import annotations

import libcst as cst
import pytest
from libcst._nodes import base

import codemods.syntax as syntax
from codemods.transformer import migrate_source
from tests.conftest import ROOT

CORPUS = ROOT.parent / "shared" / "corpus" / "files"
LARGE_MODULES = ("046_mozilla__DeepSpeech/training/deepspeech_training/train.py",
                 "018_google-research__tapas/tapas/run_task_main.py")


@pytest.fixture
def count_work(monkeypatch):
    """A function: the node visits one rewrite of a module takes (its second rewrite: caches warm)."""
    visits = [0]
    visit, children = base.CSTNode.visit, syntax._children

    def counted_visit(self, visitor):
        visits[0] += 1
        return visit(self, visitor)

    def counted_children(node):
        visits[0] += 1
        return children(node)

    monkeypatch.setattr(base.CSTNode, "visit", counted_visit)
    monkeypatch.setattr(syntax, "_children", counted_children)

    def work(source: str) -> int:
        migrate_source(source, "keras")
        visits[0] = 0
        migrate_source(source, "keras")
        return visits[0]

    return work


def node_count(source: str) -> int:
    stack, count = [cst.parse_module(source)], 0
    while stack:
        count += 1
        stack.extend(syntax._field_children(stack.pop()))
    return count


def nested_model_fn_program(depth: int) -> str:
    """An Estimator program whose model_fn builds its layers in helpers nested `depth` deep."""
    lines = ["import tensorflow as tf", "", "", "def model_fn(features, labels, mode, params):"]
    for level in range(depth):
        indent = "    " * (level + 1)
        lines += [f"{indent}def block_{level}(x):",
                  f"{indent}    x = tf.compat.v1.layers.dense(x, 8, activation=tf.nn.relu)"]
    lines.append("    " * (depth + 1) + "return tf.compat.v1.layers.dense(x, 1)")
    for level in reversed(range(depth - 1)):
        lines.append("    " * (level + 2) + f"return block_{level + 1}(x)")
    lines += [
        "    logits = block_0(features['x'])",
        "    loss = tf.compat.v1.losses.mean_squared_error(labels, logits)",
        "    train_op = tf.compat.v1.train.AdamOptimizer().minimize(loss, tf.compat.v1.train.get_global_step())",
        "    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)",
        "", "",
        "def main():",
        "    config = tf.estimator.RunConfig(save_checkpoints_steps=10)",
        "    estimator = tf.estimator.Estimator(model_fn, model_dir='/tmp/model', config=config)",
        "    estimator.train(lambda: tf.data.Dataset.from_tensors(({'x': [[1.0]]}, [[1.0]])), max_steps=20)",
        "",
    ]
    return "\n".join(lines)


def doubled(source: str) -> str:
    """`source` and a copy of it after it, the copy's module-level names renamed and its imports left out."""
    module = cst.parse_module(source)
    names = {statement.name.value for statement in module.body if isinstance(statement, (cst.FunctionDef, cst.ClassDef))}
    for statement in module.body:
        if isinstance(statement, cst.SimpleStatementLine):
            names |= {target.target.value for small in statement.body if isinstance(small, cst.Assign)
                      for target in small.targets if isinstance(target.target, cst.Name)}

    class Renamed(cst.CSTTransformer):
        def leave_Name(self, original, updated):
            return updated.with_changes(value=f"{updated.value}_copy") if updated.value in names else updated

        def leave_Attribute(self, original, updated):  # `x.name` is not the module's name
            return updated.with_changes(attr=original.attr)

        def leave_Arg(self, original, updated):  # nor is `f(name=...)`
            return updated.with_changes(keyword=original.keyword)

    imports = (cst.Import, cst.ImportFrom)
    body = [s for s in module.body if not (isinstance(s, cst.SimpleStatementLine) and isinstance(s.body[0], imports))]
    return source + "\n\n" + module.with_changes(body=body).visit(Renamed()).code


def test_work_per_node_does_not_grow_with_the_nesting(count_work):
    shallow, deep = nested_model_fn_program(16), nested_model_fn_program(64)
    per_node = [count_work(source) / node_count(source) for source in (shallow, deep)]
    # measured: 11.8 and 12.5 visits a node; a search below every definition gave 23.5 and 48
    assert per_node[1] < 1.2 * per_node[0], per_node


@pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus is not beside this checkout")
@pytest.mark.parametrize("path", LARGE_MODULES)
def test_work_doubles_with_the_module(count_work, path):
    source = (CORPUS / path).read_text()
    twice = doubled(source)
    assert node_count(twice) > 1.9 * node_count(source)
    once_work, twice_work = count_work(source), count_work(twice)
    assert twice_work < 2.15 * once_work, (once_work, twice_work)  # measured: 1.97-1.98
