"""Which estimators keep a project's run-time tier off (codemods/runtime_tier.py: kept_estimators), decided
across the project's modules: TensorFlow's estimators the rewrite cannot take and the project's classes
derived from them; not the custom `Estimator(model_fn=...)` and `TPUEstimator(...)` calls tier 2 wraps, nor a project's own class
that is merely named `...Estimator`."""

from codemods.project.facts import estimator_mentions, kept_estimators


def _kept(**modules: str) -> list[str]:
    kept = kept_estimators([estimator_mentions(source, f"{name}.py") for name, source in modules.items()])
    return [f"{name} in {path}" for name, path in kept]


def test_a_projects_own_estimator_named_class_is_not_an_estimator():
    base = "class BaseEstimator(object):\n    def train(self):\n        pass\n"
    node = "from base import BaseEstimator\n\nclass NodeEstimator(BaseEstimator):\n    pass\n"
    run = "from node import NodeEstimator\n\nNodeEstimator().train()\n"
    assert _kept(base=base, node=node, run=run) == []


def test_a_subclass_of_tensorflows_estimator_is_kept_where_defined_and_built():
    """...when it (or a class derived from it) defines one of Estimator's attributes: it changes how it works."""
    mine = "import tensorflow as tf\n\nclass Mine(tf.estimator.Estimator):\n    def train(self):\n        pass\n\n" \
        "class Yours(Mine):\n    pass\n"
    run = "from mine import Yours\n\nYours(model_fn=f)\n"
    assert _kept(mine=mine, run=run) == ["Estimator in mine.py", "Mine in mine.py", "Yours in run.py"]


def test_a_subclass_only_handing_estimator_its_model_fn_migrates_unless_a_class_derived_from_it_overrides():
    thin = "import tensorflow as tf\n\nclass Mine(tf.estimator.Estimator):\n    def __init__(self, d):\n" \
        "        super().__init__(model_fn=f, model_dir=d)\n\n    def helper(self):\n        pass\n"
    assert _kept(mine=thin, run="from mine import Mine\n\nMine('d')\n") == []
    derived = "from mine import Mine\n\nclass Yours(Mine):\n    def _call_model_fn(self, *args):\n        pass\n"
    assert _kept(mine=thin, yours=derived) == ["Yours in yours.py"]


def test_custom_estimators_are_wrapped_unless_an_argument_is_not_carried_over():
    wrapped = "tf.estimator.Estimator(model_fn=f, model_dir=d, config=c, params=p)\ntf.estimator.Estimator(f, d)\n"
    assert _kept(wrapped=wrapped + "tf.estimator.Estimator(model_fn=f, warm_start_from=w)\n") == []
    assert _kept(extra="tf.estimator.Estimator(f, d, c, p, w, x)\n") == ["Estimator in extra.py"]
    # Estimator's parameters given by a dict: wrapped_model_fns.Estimator(**kwargs), checked when the program runs
    assert _kept(star="tf.estimator.Estimator(**kwargs)\n") == []
    assert _kept(star="tf.compat.v1.estimator.tpu.TPUEstimator(**kwargs)\n") == ["TPUEstimator in star.py"]


def test_boosted_trees_estimators_are_kept_canned_and_tpu_ones_are_not():
    source = ("tf.compat.v1.estimator.tpu.TPUEstimator(model_fn=f, use_tpu=False, train_batch_size=8)\n"
              "tf.estimator.BoostedTreesClassifier(c, 1)\ntf.estimator.DNNClassifier(hidden_units=[4], feature_columns=c)\n")
    assert _kept(main=source) == ["BoostedTreesClassifier in main.py"]


def test_a_tpu_estimator_is_wrapped_unless_an_argument_is_not_carried_over():
    assert _kept(tpu="TPUEstimator(f, d, c, p, True, 8, 8, 8, None, True)\n") == []
    assert _kept(warm="TPUEstimator(model_fn=f, warm_start_from=w)\n") == []
    assert _kept(embed="TPUEstimator(model_fn=f, embedding_config_spec=e)\n") == ["TPUEstimator in embed.py"]


def test_a_module_that_does_not_parse_mentions_nothing():
    assert _kept(py2="print 'Estimator'\nx = tf.estimator.TPUEstimator(\n") == []
