"""Names resolve to TensorFlow APIs from the import table when that is unambiguous, and by LibCST's scope
analysis otherwise; both ways give the same answer for every expression of every program we have."""

from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import ExpressionContext, ExpressionContextProvider, QualifiedNameProvider

from codemods.api import Api, ApiResolver
from codemods.bindings import ModuleBindings
from tests.codemods.test_fixtures import FIXTURES

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = sorted(FIXTURES.glob("*/input.py")) + sorted((ROOT / "tests" / "corpus").glob("*.py"))
PROGRAMS += sorted((ROOT / "tests" / "legacy").glob("*.py")) + [ROOT / "examples" / "digits_estimator.py"]
# Real TF1 code, where it is beside this repository (never copied into it): names imported in functions, aliases
PROGRAMS += sorted((ROOT.parent / "shared" / "corpus" / "files").glob("**/*.py"))


def resolvers(source: str) -> tuple[cst.Module, ApiResolver, ApiResolver]:
    """The module, its resolver as the rewrite builds it, and one that always uses scope analysis."""
    wrapper = cst.MetadataWrapper(cst.parse_module(source))
    module = wrapper.module
    bindings = ModuleBindings.of(module)
    analysis = lambda: wrapper.resolve(QualifiedNameProvider)  # noqa: E731
    return (
        module,
        ApiResolver(module, bindings, analysis),
        ApiResolver(module, bindings, analysis, always_analyse=True),
    )


def used_expressions(module: cst.Module) -> list[cst.CSTNode]:
    """Every name and attribute read (not assigned, not a keyword or attribute name), and every call and
    subscript: the expressions the rewrite asks about."""
    contexts = cst.MetadataWrapper(module, unsafe_skip_copy=True).resolve(ExpressionContextProvider)
    expressions = _Expressions(contexts)
    module.visit(expressions)
    return expressions.nodes


class _Expressions(cst.CSTVisitor):
    def __init__(self, contexts) -> None:
        self.contexts = contexts
        self.nodes: list[cst.CSTNode] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, (cst.Import, cst.ImportFrom)):
            return False
        if isinstance(node, cst.Arg):  # not its keyword's name
            node.value.visit(self)
            return False
        if isinstance(node, (cst.Call, cst.Subscript)) or self.contexts.get(node) is ExpressionContext.LOAD:
            self.nodes.append(node)
        return True


def readable(path: Path) -> str | None:
    try:
        return cst.parse_module(path.read_text()) and path.read_text()
    except (UnicodeDecodeError, cst.ParserSyntaxError):
        return None


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_import_table_resolves_like_scope_analysis(path):
    source = readable(path)
    if source is None:
        pytest.skip("a file LibCST cannot read: malformed on purpose, or Python 2")
    module, resolver, analysed = resolvers(source)
    nodes = used_expressions(module)
    resolved = [(cst.Module([]).code_for_node(n), resolver.api(n)) for n in nodes]
    assert resolved == [(code, analysed.api(n)) for (code, _), n in zip(resolved, nodes)]
    assert any(api is not None for _, api in resolved) or not resolver.used_scope_analysis


def api_of_calls(source: str) -> tuple[list[Api | None], bool]:
    module, resolver, _ = resolvers(source)
    calls = [node for node in used_expressions(module) if isinstance(node, cst.Call)]
    return [resolver.call_api(call) for call in calls], resolver.used_scope_analysis


def test_a_module_importing_tensorflow_once_needs_no_scope_analysis():
    source = (
        "import tensorflow.compat.v1 as tf\ntf1 = tf\n\ndef main():\n    tf1.estimator.DNNClassifier([1])\n"
    )
    assert api_of_calls(source) == ([Api("estimator.DNNClassifier", True)], False)


def test_a_call_of_what_a_call_returned_calls_no_api():
    """`build_parsing_serving_input_receiver_fn(spec)()` (006 churn-prediction's input_util.py): the outer call
    calls the receiver function the inner one made; once taken for the builder's call, its rewrite lost `spec`."""
    module, resolver, scoped = resolvers(
        "import tensorflow as tf\nreceiver = tf.estimator.export.build_parsing_serving_input_receiver_fn(spec)()\n"
    )
    outer = module.body[1].body[0].value
    for each in (resolver, scoped):
        assert each.call_api(outer) is None
        assert each.call_api(outer.func) == Api("estimator.export.build_parsing_serving_input_receiver_fn", False)


DNN = Api("estimator.DNNClassifier", False)


@pytest.mark.parametrize(
    "source, expected",
    [
        # a parameter shadows the import inside the function
        (
            "import tensorflow as tf\ndef f(tf):\n    tf.estimator.DNNClassifier([1])\ntf.estimator.DNNClassifier([1])\n",
            [None, DNN],
        ),
        # imported in one function, named in another
        (
            "def f():\n    import tensorflow as tf\n    tf.estimator.DNNClassifier([1])\ndef g():\n    tf.estimator.DNNClassifier([1])\n",
            [DNN, None],
        ),
        # imported in a function, named by its decorator, which is evaluated outside it
        (
            "@tf.function()\ndef f():\n    import tensorflow as tf\n    tf.estimator.DNNClassifier([1])\n",
            [None, DNN],
        ),
        # rebound: LibCST's analysis is not flow-sensitive, each use may mean either binding, one is TensorFlow
        (
            "import tensorflow as tf\ntf.estimator.DNNClassifier([1])\ntf = object()\ntf.estimator.DNNClassifier([1])\n",
            [DNN, None, DNN],
        ),
    ],
    ids=["parameter", "function-import", "decorator", "rebound"],
)
def test_a_shadowed_or_rebound_tensorflow_name_is_resolved_by_scope(source, expected):
    assert api_of_calls(source) == (expected, True)


def test_a_name_imported_in_the_only_function_naming_it_needs_no_scope_analysis():
    source = (
        "def main():\n    import tensorflow as tf\n    est = tf.estimator.DNNClassifier([1])\n"
        "    return [tf.estimator.RunConfig() for _ in range(2)]\n"
    )
    assert api_of_calls(source) == ([DNN, Api("estimator.RunConfig", False), None], False)  # None: range(2)


def test_an_alias_also_bound_elsewhere_is_resolved_by_scope():
    source = "import tensorflow as tf\nest = tf.estimator\ndef f(est):\n    est.DNNClassifier([1])\nest.DNNClassifier([1])\n"
    assert api_of_calls(source) == ([None, Api("estimator.DNNClassifier", False)], True)


def test_a_star_import_is_resolved_by_scope():
    source = "from tensorflow.compat.v1 import *\nimport tensorflow as tf\ntf.estimator.DNNClassifier([1])\n"
    assert api_of_calls(source)[1]


@pytest.mark.parametrize(
    "source, name",
    [
        ("import tensorflow.compat.v1 as tf\n", "tf2"),  # tf is taken at module level
        ("import tensorflow.compat.v1 as tf1\n", "tf"),
        ("import tensorflow.compat.v1 as tf1\ndef f():\n    tf = 1\n", "tf"),  # a local tf shadows nothing here
        ("import tensorflow.compat.v1 as tf1\ndef f():\n    global tf\n    tf = 1\n", "tf2"),  # binds module-level tf
    ],
)
def test_the_name_for_tensorflow_avoids_module_level_bindings(source, name):
    from codemods.transformer import RuleContext

    module = cst.parse_module(source)
    assert RuleContext._tensorflow_name(module, ModuleBindings.of(module)) == name
