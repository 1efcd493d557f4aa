"""Modules the rewrite cannot parse: their training constructs marked with TODOs, nothing else changed."""

from codemods.unparsed import COMMENT, mark_unparsed

PYTHON2 = """\
import tensorflow as tf

class Hook(tf.train.SessionRunHook):
    pass

def main(argv):
    config = tf.estimator.RunConfig(save_checkpoints_steps=10)
    estimator = tf.estimator.Estimator(
        model_fn=model_fn, config=config)
    print "training", estimator
    estimator.train(input_fn=train_input, steps=100)
    print estimator.get_variable_names()
    trainer.train(data)  # no input_fn: not an Estimator's train
"""


def test_each_statement_naming_a_construct_gets_a_todo_at_its_indentation():
    marked, findings = mark_unparsed(PYTHON2)
    lines = marked.splitlines()
    assert [lines[i + 1].strip() for i, line in enumerate(lines) if line.strip() == COMMENT] == [
        "class Hook(tf.train.SessionRunHook):",
        "config = tf.estimator.RunConfig(save_checkpoints_steps=10)",
        "estimator = tf.estimator.Estimator(",
        "estimator.train(input_fn=train_input, steps=100)",
    ]
    assert f"    {COMMENT}\n    estimator.train(" in marked
    assert [line for line in lines if line.strip() != COMMENT] == PYTHON2.splitlines()
    assert [(f.line, f.col, f.migrated) for f in findings] == [(3, 0, False), (7, 4, False), (8, 4, False),
                                                                (11, 4, False)]


def test_marking_twice_changes_nothing_and_reports_the_same_constructs():
    marked, findings = mark_unparsed(PYTHON2)
    again, found_again = mark_unparsed(marked)
    assert again == marked
    assert [f.message for f in found_again] == [f.message for f in findings] and len(findings) == 4


def test_windows_line_endings_are_kept():
    marked, _ = mark_unparsed(PYTHON2.replace("\n", "\r\n"))
    assert f"    {COMMENT}\r\n    config" in marked
    assert "\n" not in marked.replace("\r\n", "")


def test_a_module_the_tokenizer_cannot_finish_is_marked_up_to_there():
    source = "config = tf.estimator.RunConfig(save_checkpoints_steps=10)\nestimator = DNNClassifier(\n"
    marked, findings = mark_unparsed(source)
    assert marked == f"{COMMENT}\n{source}"
    assert len(findings) == 1
