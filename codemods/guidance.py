"""What the rewrite tells the user about each TF1 API it keeps: `GUIDANCE`, API path -> what to do by hand.

Plain data, without LibCST: the unsupported-api rule writes it into TODOs, codemods/unparsed.py marks modules
LibCST cannot parse with it, and the runner's prefilter (codemods/prefilter.py) reads which names to look for
before anything is parsed.
"""

HOOKS = {
    "StopAtStepHook": "carried over (compat.estimator_hooks.StopAtStep) only inline in the hooks= list of a migrated "
    "train call or in the hooks of a migrated MonitoredTrainingSession; elsewhere end the loop at that step yourself",
    "LoggingTensorHook": "log from a tf_keras callback's on_train_batch_end(batch, logs) (graph tensors "
    "fetched by name do not exist in TF2); LoggingTensorHook({tag: loss}, every_n_iter=N) in a migrated "
    "MonitoredTrainingSession is carried over (compat.estimator_hooks.LogLoss), and one of the global step "
    "(\"global_step\") in a migrated canned estimator's train(hooks=...) (compat.estimator_hooks.LoggingTensorHook)",
    "NanTensorHook": "use tf_keras.callbacks.TerminateOnNaN() (NanTensorHook(loss) in the hooks of a migrated "
    "MonitoredTrainingSession is carried over)",
    "ProfilerHook": "carried over (compat.estimator_hooks.Profiler: TensorFlow's profiler on the same steps) in the "
    "hooks of a migrated train call or of a model_fn kept as written, with one of save_steps and save_secs; "
    "elsewhere use tf_keras.callbacks.TensorBoard(log_dir, profile_batch=(start, stop))",
    # Estimator uses a CheckpointSaverHook in hooks= instead of its own saver (estimator.py,
    # _train_with_estimator_spec): the RunConfig's cadence is then unused.
    "CheckpointSaverHook": "it replaced the Estimator's own saver: carried over (its save_steps/save_secs become "
    "the migrated cadence) when written inline in the hooks= of a migrated train call, saving to model_dir with "
    "no saver/scaffold/listeners of its own; saving elsewhere needs a tf.train.CheckpointManager of its own",
    "SummarySaverHook": "use tf_keras.callbacks.TensorBoard(log_dir, update_freq=save_steps)",
    "StepCounterHook": "carried over (compat.estimator_hooks.StepCounter) only inline in the hooks= list of a "
    "migrated train call, or through a variable; elsewhere time the steps in a callback",
    "FinalOpsHook": "run the final ops after training, on the migrated model",
    "FeedFnHook": "feed data through the input pipeline (tf.data) instead",
    "GlobalStepWaiterHook": "not needed without parameter servers; remove it",
}
_EARLY_STOPPING = (
    "stop_if_no_decrease_hook",
    "stop_if_no_increase_hook",
    "stop_if_higher_hook",
    "stop_if_lower_hook",
)

SESSION_HOW = (
    "migrated in the shape of docs/migration.md ('MonitoredTrainingSession'); otherwise write a TF2 loop with "
    "tf.train.Checkpoint(model=..., optimizer=...) and tf.train.CheckpointManager(checkpoint_dir, "
    "checkpoint_interval=save_checkpoint_steps), restore first, a tf.function train step (the migrated shape "
    "shows how)"
)

SAVER_HOW = (
    "migrated in the shape of docs/migration.md ('tf.Session and Saver loops'); otherwise build the network as a "
    "Keras model, train it with a tf.function step, and save with tf.train.CheckpointManager(tf.train.Checkpoint("
    "model=..., optimizer=...), directory, max_to_keep=...) (the migrated shape shows how)"
)

GUIDANCE = {
    "estimator.Estimator": "custom model_fn Estimator: migrated only when its model_fn has the common shape "
    "(docs/migration.md, 'Custom model_fn'); otherwise port model_fn to a compat.model_fns.EstimatorModel "
    "subclass (network in call, loss in compute_loss, optimizer compiled in) and keep checkpoints with "
    "BackupAndRestore or tf.train.CheckpointManager (the migrations of other estimators show the shape)",
    "estimator.train_and_evaluate": "train_and_evaluate: migrated only for a canned estimator this module "
    "builds; otherwise train with the migrated checkpointing and evaluate after checkpoint saves "
    "(compat.estimator_evaluation.PeriodicEvaluation does it as a callback)",
    "estimator.tpu.TPUEstimator": "TPUEstimator: not migrated; build the model in "
    "tf.distribute.TPUStrategy(resolver).scope() and train it with fit",
    "tpu.CrossShardOptimizer": "CrossShardOptimizer: TPUStrategy aggregates gradients itself; use the "
    "plain Keras optimizer",
    "train.MonitoredTrainingSession": "MonitoredTrainingSession: not migrated; " + SESSION_HOW,
    "train.Saver": "tf.compat.v1.train.Saver writes name-based TF1 checkpoints: use tf.train.Checkpoint "
    "and tf.train.CheckpointManager (tf.train.load_checkpoint still reads the old files by name); a training "
    "loop saving with it migrates in the shape of docs/migration.md ('tf.Session and Saver loops')",
}
GUIDANCE["contrib.tpu.TPUEstimator"] = GUIDANCE["estimator.tpu.TPUEstimator"]
_TPU_RUNCONFIG = (
    "TPU RunConfig: kept with its TPUEstimator; once that is a Keras model under tf.distribute.TPUStrategy, its "
    "save_checkpoints_steps/keep_checkpoint_max become BackupAndRestore(backup_dir, save_freq=N) or "
    "tf.train.CheckpointManager(..., max_to_keep=N, checkpoint_interval=N)"
)
for _path in ("estimator.tpu.RunConfig", "contrib.tpu.RunConfig", "tpu.RunConfig"):
    GUIDANCE[_path] = _TPU_RUNCONFIG
# tf.contrib went away with TensorFlow 2.0: these programs stopped running long before tf.estimator did.
_CONTRIB_LEARN = (
    "tf.contrib.learn (removed in TensorFlow 2.0): port this to its tf.estimator counterpart "
    "(tf.estimator.{name}, train/evaluate with input_fns instead of fit/Experiment), then run migrate again; "
    "its checkpoints are not read by the migrated model"
)
for _name in ("DNNClassifier", "DNNRegressor", "LinearClassifier", "LinearRegressor", "DNNLinearCombinedClassifier",
              "DNNLinearCombinedRegressor", "Estimator", "RunConfig"):
    GUIDANCE[f"contrib.learn.{_name}"] = _CONTRIB_LEARN.format(name=_name)
GUIDANCE["contrib.learn.Experiment"] = _CONTRIB_LEARN.format(name="train_and_evaluate with TrainSpec/EvalSpec")
for _path in ("contrib.learn.learn_runner.run", "contrib.learn.python.learn.learn_runner.run"):
    GUIDANCE[_path] = _CONTRIB_LEARN.format(name="train_and_evaluate")
for _name in ("LatestExporter", "FinalExporter", "BestExporter"):
    GUIDANCE[f"estimator.{_name}"] = (
        f"{_name}: carried over (compat.estimator_export.{_name}) only in the EvalSpec of a migrated "
        "train_and_evaluate; otherwise export with compat.estimator_export.export_saved_model after an evaluation"
    )
for _name in ("BoostedTreesClassifier", "BoostedTreesRegressor", "BoostedTreesEstimator"):
    GUIDANCE[f"estimator.{_name}"] = (
        f"{_name}: gradient boosted trees have no TensorFlow 2 counterpart; use TensorFlow Decision "
        "Forests (tfdf.keras.GradientBoostedTreesModel) or XGBoost/LightGBM (the checkpoints do not convert)"
    )
for _name in _EARLY_STOPPING:
    GUIDANCE[f"contrib.estimator.{_name}"] = GUIDANCE[f"estimator.experimental.{_name}"] = (
        f"{_name}: carried over (compat.estimator_hooks.{_name}, reading model_dir/eval) only in the hooks of a migrated "
        "train call of the estimator it names; otherwise stop on the evaluation metrics in a callback"
    )
# The rest of TensorFlow 2.15's tf.estimator API that no rule carries over: TensorFlow >= 2.16 has no tf.estimator,
# so each call stops the program; say what replaces it.
_GONE = "not migrated yet (TensorFlow >= 2.16 has no tf.estimator: this line stops the program); "
for _family, _twins in (("DNN", "DNNClassifier/DNNRegressor"), ("Linear", "LinearClassifier/LinearRegressor"),
                        ("DNNLinearCombined", "DNNLinearCombinedClassifier/Regressor"),
                        ("Baseline", "BaselineClassifier/BaselineRegressor")):
    GUIDANCE[f"estimator.{_family}Estimator"] = GUIDANCE[f"contrib.estimator.{_family}Estimator"] = (
        f"{_family}Estimator: migrates (compat.canned.{_family.lower().replace('dnnlinear', 'dnn_linear_')}_estimator: "
        f"the {_twins} of its BinaryClassHead, MultiClassHead or RegressionHead) with the estimators of a project "
        "that keeps none as TF1; here it stays (TensorFlow >= 2.16 has no tf.estimator: this line stops the program)"
    )
for _name in ("Head",):
    GUIDANCE[f"estimator.{_name}"] = f"{_name}: {_GONE}a head of a head-based canned estimator (see its estimator)"
for _name in ("BinaryClassHead", "MultiClassHead", "MultiLabelHead", "RegressionHead", "PoissonRegressionHead",
              "LogisticRegressionHead", "MultiHead", "binary_classification_head", "multi_class_head",
              "multi_label_head", "regression_head", "poisson_regression_head", "logistic_regression_head",
              "multi_head"):
    GUIDANCE[f"{'contrib.estimator' if _name.islower() else 'estimator'}.{_name}"] = (
        f"{_name}: migrates (compat.estimator_heads.{_name}) in the model_fns (a binary, multi-class or regression "
        "head also in head-based canned estimators) of a project that keeps no estimator as TF1; here it stays (TensorFlow >= 2.16 has no tf.estimator, TensorFlow 2 no tf.contrib: this line "
        "stops the program)"
    )
GUIDANCE["estimator.add_metrics"] = GUIDANCE["contrib.estimator.add_metrics"] = (
    "add_metrics: migrates (compat.added_metrics.add_metrics) with the estimators of a project that keeps none as "
    "TF1; here it stays (TensorFlow >= 2.16 has no tf.estimator: this line stops the program)"
)
GUIDANCE["contrib.estimator.forward_features"] = (
    "forward_features: migrates (compat.forwarded_features.forward_features) with the estimators of a project that "
    "keeps none as TF1; here it stays (TensorFlow 2 has no tf.contrib: this line stops the program)"
)
GUIDANCE["estimator.experimental.InMemoryEvaluatorHook"] = (
    "InMemoryEvaluatorHook: migrates (compat.estimator_training.InMemoryEvaluator) with the estimators of a project "
    "that keeps none as TF1; here it stays (TensorFlow >= 2.16 has no tf.estimator: this line stops the program)"
)
for _name in ("KMeans", "LinearSDCA", "RNNClassifier", "RNNEstimator"):
    GUIDANCE[f"estimator.experimental.{_name}"] = (
        f"{_name}: {_GONE}no TensorFlow 2 estimator; write it as a tf_keras model (tf_keras.layers.RNN, a k-means "
        "loop of your own; SDCA has no Keras optimizer) and checkpoint it as the migrated estimators do"
    )
for _name in ("call_logit_fn", "dnn_logit_fn_builder", "linear_logit_fn_builder"):
    GUIDANCE[f"estimator.experimental.{_name}"] = f"{_name}: {_GONE}build the logits with tf_keras layers"
GUIDANCE["estimator.experimental.build_raw_supervised_input_receiver_fn"] = (
    f"build_raw_supervised_input_receiver_fn: {_GONE}a supervised (features and labels) receiver is for "
    "export_saved_model(experimental_mode=TRAIN/EVAL): export the serving signature instead"
)
GUIDANCE["estimator.experimental.make_stop_at_checkpoint_step_hook"] = (
    f"make_stop_at_checkpoint_step_hook: {_GONE}an evaluation worker stops when model_dir's latest checkpoint "
    "reaches the step: poll tf.train.latest_checkpoint(model_dir) in its loop"
)
GUIDANCE["estimator.experimental.make_early_stopping_hook"] = (
    "make_early_stopping_hook: carried over (compat.estimator_hooks.make_early_stopping_hook) only in the hooks "
    "of a migrated train call of the estimator it names; otherwise call should_stop_fn from a callback's "
    "on_train_batch_end and set self.model.stop_training"
)
# Built-in hooks that run as they are (tf.compat.v1.train's) among the hooks of a model_fn kept as written
# (compat.wrapped_hooks): they fetch tensors and read the global step, without feeds or options (SummarySaverHook
# writes what it fetched with a TF1 FileWriter, which needs no session).
RUN_WITH_WRAPPED = ("StopAtStepHook", "LoggingTensorHook", "NanTensorHook", "FinalOpsHook", "GlobalStepWaiterHook",
                    "SummarySaverHook")
_WRAPPED = ("runs as it is (tf.compat.v1.train.{name}) in the training_hooks of a model_fn kept as written or in "
            "its train(hooks=...) (compat.wrapped_hooks); otherwise ")
# What a migrated one of them says, in a project whose model_fns are kept as written (codemods/runtime_tier.py)
RUNS_WITH_WRAPPED = (
    "{name}: runs as it is (tf.compat.v1.train.{name}, TF1's class) among the hooks of a model_fn kept as written or "
    "of its train(hooks=...), against the model_fn's graph as Estimator ran it (compat.wrapped_hooks); given to an "
    "estimator whose model is Keras, the migrated program stops with one error naming it"
)
# ... and LoggingTensorHook given to a run-time tier training, whatever model its estimator gets
RUNS_WITH_ANY_MODEL = (
    "LoggingTensorHook: TF1's class (tf.compat.v1.train.LoggingTensorHook), taken when the program runs: against "
    "the model_fn's graph as Estimator ran it where the model_fn is kept as written (compat.wrapped_hooks), as "
    "compat.estimator_hooks.LoggingTensorHook where the estimator's model is Keras (the global step logged at the "
    "same steps; another tensor there is one error naming it)"
)
for _name, _what in HOOKS.items():
    for _namespace in ("train", "estimator"):
        GUIDANCE[f"{_namespace}.{_name}"] = (
            f"{_name}: not migrated yet; " + _WRAPPED.format(name=_name) * (_name in RUN_WITH_WRAPPED) + _what)
