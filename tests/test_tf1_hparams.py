"""compat.tf1_hparams: TensorFlow 1.x's tf.contrib.training.HParams, which migrated programs read their
hyperparameters with. No TensorFlow we can install has tf.contrib (the legacy environment is 2.15): the expected
values are TF 1.15's documented behaviour, as its own tests (tensorflow/contrib/training/python/training/
hparam_test.py) state them."""

from __future__ import annotations

import pytest

from estimator_migrate.compat.tf1_hparams import HParams, parse_values


def test_values_repr_and_overrides_by_parse():
    hparams = HParams(aaa=1, b=2.0, c_c="relu6", d="/a/b=c/d")
    assert hparams.values() == {"aaa": 1, "b": 2.0, "c_c": "relu6", "d": "/a/b=c/d"}
    assert repr(hparams) == "HParams([('aaa', 1), ('b', 2.0), ('c_c', 'relu6'), ('d', '/a/b=c/d')])"
    assert hparams.parse("aaa=12") is hparams and hparams.aaa == 12
    hparams.parse("c_c=relu4, b=-2.0e10")
    assert (hparams.c_c, hparams.b) == ("relu4", -2.0e10)
    hparams.parse("c_c=,b=0,")  # an empty string; an int into a float hyperparameter
    assert (hparams.c_c, hparams.b) == ("", 0.0) and type(hparams.b) is float
    hparams.parse('c_c=2.3",b=+2,')
    assert (hparams.c_c, hparams.b) == ('2.3"', 2.0)
    hparams.parse("b=1.5,d=/a=b/c/d,aaa=10,")  # `=` inside a value
    assert hparams.values() == {"aaa": 10, "b": 1.5, "c_c": '2.3"', "d": "/a=b/c/d"}


@pytest.mark.parametrize(("override", "error"), [
    ("x=123", "Unknown hyperparameter type for x"),
    ("aaa=poipoi", "Could not parse hparam 'aaa' of type 'int' with value 'poipoi'"),
    ("aaa=1.0", "Could not parse hparam 'aaa' of type 'int'"),
    ("b=12x", "Could not parse hparam 'b' of type 'float'"),
    ("aaa=[123]", "Must not pass a list for single-valued parameter: aaa"),
    ("aaa=1,aaa=2", "Multiple assignments to variable 'aaa'"),
    ("aaa 12", "Malformed hyperparameter value: aaa 12"),
])
def test_a_bad_override_is_a_value_error_and_changes_nothing(override, error):
    hparams = HParams(aaa=10, b=1.5)
    with pytest.raises(ValueError, match=error.replace("[", r"\[")):
        hparams.parse(override)
    assert hparams.values() == {"aaa": 10, "b": 1.5}


@pytest.mark.parametrize("value", ["true", "false", "True", "False", "1", "0"])
def test_booleans_parse_from_words_and_integers(value):
    for initial in (False, True):
        hparams = HParams(use_gpu=initial).parse(f"use_gpu={value}")
        assert hparams.use_gpu is (value in ("true", "True", "1"))
    with pytest.raises(ValueError, match="Could not parse hparam 'use_gpu'"):
        HParams(use_gpu=True).parse("use_gpu=yep")


def test_lists_are_typed_by_their_first_element():
    hparams = HParams(aaa=[1], b=[2.0, 3.0], c_c=["relu6"])
    hparams.parse("aaa=[12,34,56]")
    assert hparams.aaa == [12, 34, 56]
    hparams.parse("c_c=[relu4,relu12],b=[1.0]")
    assert (hparams.c_c, hparams.b) == (["relu4", "relu12"], [1.0])
    hparams.parse("c_c=[],aaa=[-34]")
    assert (hparams.c_c, hparams.aaa) == ([], [-34])
    hparams.parse("c_c=[_12,3'4\"],aaa=[+3]")
    assert (hparams.c_c, hparams.aaa) == (["_12", "3'4\""], [3])
    with pytest.raises(ValueError, match="Could not parse hparam 'aaa'"):
        hparams.parse("aaa=[1.0]")
    with pytest.raises(ValueError, match="Must pass a list for multi-valued parameter: aaa"):
        hparams.parse("aaa=123")
    with pytest.raises(ValueError, match="Multi-valued hyperparameters cannot be empty: e"):
        HParams(e=[])


def test_str_is_what_parse_reads_back():
    source = HParams(a=1, b=[2.0, 3.0], c="relu6")
    assert str(source) == "a=1,b=[2.0, 3.0],c=relu6"
    target = HParams(a=4, b=[5.0, 6.0], c="relu10").parse(str(source))
    assert target.values() == source.values()


def test_parse_values_reads_index_assignments_into_dicts():
    assert parse_values("x=10,arr[1]=20,y=30", {"x": int, "y": int, "arr": int}) == {"x": 10, "arr": {1: 20}, "y": 30}
    assert parse_values("a[0]=5,b[1]=true,c[2]=abc,d[3]=3.14", {"a": int, "b": bool, "c": str, "d": float}) == {
        "a": {0: 5}, "b": {1: True}, "c": {2: "abc"}, "d": {3: 3.14}}
    assert parse_values("arr[0]=10,C=5,arr[1]=20,B[0]=kkk", {"arr": int}, ignore_unknown=True) == {"arr": {0: 10, 1: 20}}
    for values, error in (("arr[1]=[1,2,3]", "Assignment of a list to a list index"),
                          ("arr[1]=1", "Unknown hyperparameter type for arr"),
                          ("arr[1]=1,arr[1]=2", r"Multiple assignments to variable 'arr\[1\]'"),
                          ("arr=[1],arr[0]=2", "Multiple assignments to variable 'arr'")):
        with pytest.raises(ValueError, match=error):
            parse_values(values, {"arr": int} if "Unknown" not in error else {"arr[1]": int})
    # HParams.parse hands the dict to set_hparam, which wants a list: index assignments fail there, as in TF 1.x
    with pytest.raises(ValueError, match="Must pass a list for multi-valued parameter: arr"):
        HParams(arr=[1, 2]).parse("arr[1]=5")


def test_names_with_periods_are_reached_by_getattr():
    hparams = HParams()
    hparams.add_hparam("a.b", 0.0)
    hparams.parse("a.b=1.0")
    assert getattr(hparams, "a.b") == 1.0


def test_overrides_from_dicts_and_json_are_type_checked():
    hparams = HParams(a=1, b=2.0, c="tanh", d=[0.5], flag=False)
    hparams.override_from_dict({"a": -2, "c": "identity", "d": [0.1, 0.2]})
    assert hparams.values() == {"a": -2, "b": 2.0, "c": "identity", "d": [0.1, 0.2], "flag": False}
    hparams.parse_json('{"b": 3, "flag": true}')
    assert (hparams.b, type(hparams.b), hparams.flag) == (3.0, float, True)
    assert HParams(a=1, b=[2.0]).to_json(sort_keys=True) == '{"a": 1, "b": [2.0]}'
    for name, value in (("a", 1.5), ("a", True), ("c", 3), ("b", "x"), ("flag", 1)):
        with pytest.raises(ValueError, match=f"Could not cast hparam '{name}'"):
            hparams.set_hparam(name, value)
    with pytest.raises(KeyError):
        hparams.set_hparam("unknown", 1)
    hparams.del_hparam("c")
    assert "c" not in hparams and "a" in hparams and not hasattr(hparams, "c")


def test_get_checks_its_default_and_reserved_names_are_refused():
    hparams = HParams(a=1, b=[2.0])
    assert (hparams.get("a", 5), hparams.get("zzz", 7), hparams.get("b", [1.0])) == (1, 7, [2.0])
    with pytest.raises(ValueError, match="Hparam 'a' of type .* is incompatible with default=1.5"):
        hparams.get("a", 1.5)
    with pytest.raises(ValueError, match="incompatible with default=3"):
        hparams.get("b", 3)
    for reserved in ("values", "parse", "a"):
        with pytest.raises(ValueError, match=f"Hyperparameter name is reserved: {reserved}"):
            hparams.add_hparam(reserved, 1)


def test_protocol_buffers_are_one_error():
    with pytest.raises(ValueError, match="HParamDef.*not migrated"):
        HParams(a=1).to_proto()
    with pytest.raises(ValueError, match="HParamDef.*not migrated"):
        HParams(hparam_def=object())


@pytest.mark.parametrize("target", ["keras", "loop"])
def test_a_migrated_program_reads_its_hparams_as_tf1_did(target, tmp_path, monkeypatch):
    """tests/codemods/fixtures/contrib_training_hparams, migrated: the flags become HParams, a --hparams string
    overrides two of them (an int flag into train_steps, a float into learning_rate), and the estimator trains to that
    step with those params."""
    from tests.codemods.test_fixtures import FIXTURES
    from tests.conftest import import_program

    program = import_program(FIXTURES / "contrib_training_hparams" / f"{target}.py")
    monkeypatch.setattr("sys.argv", ["task.py", "--model_dir", str(tmp_path), "--hparams", "learning_rate=0.25,train_steps=7"])
    estimator, hparams = program.main()
    assert hparams.values() == {"model_dir": str(tmp_path), "learning_rate": 0.25, "train_steps": 7,
                                "hparams": "learning_rate=0.25,train_steps=7", "n_classes": 2}
    assert int(estimator.optimizer.iterations) == 7
    assert estimator.model_fn_params["learning_rate"] == 0.25
    with pytest.raises(ValueError, match="Could not parse hparam 'train_steps' of type 'int' with value '7.5'"):
        monkeypatch.setattr("sys.argv", ["task.py", "--model_dir", str(tmp_path), "--hparams", "train_steps=7.5"])
        program.main()
