"""Where the code of tf.contrib's modules went, for the names TensorFlow 1.x programs reach them by.

tf.contrib went with TensorFlow 2.0 and was never in tf.compat.v1. Part of it moved, as the same code: contrib.layers'
layers, initializers, regularizers, `optimize_loss` and summaries, contrib.framework's arg scopes and variable helpers,
contrib.metrics' streaming metrics, contrib.losses and all of contrib.slim into the tf-slim package (`pip install tf-slim`, `import tf_slim`, which runs on TensorFlow 2's
tf.compat.v1; its layers on tf_keras's legacy layers); tf.contrib.tpu's optimizer, scopes and graph functions and
tf.contrib.cluster_resolver's resolvers were tensorflow.python.tpu's and tensorflow.python.distribute's by TensorFlow
1.15, which TensorFlow 2 keeps under tf.compat.v1; tf.contrib.data's transformations were deprecated aliases of
tf.data.experimental's, with the same parameters; tf.contrib.training's HParams has no twin in TensorFlow 2, and
compat.tf1_hparams gives TF 1.x's back; contrib.framework's nest was tf.nest's code, contrib.lookup core's tables
(compat.contrib_lookup: its functions took `mapping=`), contrib.distribute's MirroredStrategy core's with its own
device choice (compat.contrib_distribute), contrib.predictor a SavedModel loaded into a session
(compat.contrib_predictor), contrib.learn's VocabularyProcessor pure Python (compat.contrib_learn), its MNIST reader
and CSV loaders TF 1.x's (compat.tf1_mnist, compat.tf1_datasets). codemods/rules/contrib_modules.py renames
references by these tables; what they lack keeps its TODO (codemods/rules/contrib_names.py).
"""

# tf-slim 1.1's public names, by the tf.contrib module whose code they are (tests/test_tf_slim_names.py checks them
# against the installed tf_slim): tf_slim.layers (contrib.layers), tf_slim.ops.variables and arg_scope
# (contrib.framework), and the whole of tf_slim (contrib.slim).
LAYERS = frozenset({
    "GDN", "RevBlock", "adaptive_clipping_fn", "apply_regularization", "avg_pool2d", "avg_pool3d", "batch_norm",
    "bias_add", "bucketize", "conv1d", "conv2d", "conv2d_in_plane", "conv2d_transpose", "conv3d", "conv3d_transpose",
    "convolution", "convolution1d", "convolution2d", "convolution2d_in_plane", "convolution2d_transpose",
    "convolution3d", "convolution3d_transpose", "dense_to_sparse", "dropout", "flatten", "fully_connected", "gdn",
    "group_norm", "images_to_sequence", "instance_norm", "l1_l2_regularizer", "l1_regularizer", "l2_regularizer",
    "layer_norm", "legacy_fully_connected", "max_pool2d", "max_pool3d", "maxout", "one_hot_encoding", "optimize_loss",
    "pool", "recompute_grad", "repeat", "rev_block", "scale_gradient", "separable_conv2d", "separable_convolution2d",
    "sequence_to_images", "softmax", "spatial_softmax", "stack", "sum_regularizer", "summarize_activation",
    "summarize_activations", "summarize_collection", "summarize_tensor", "summarize_tensors", "unit_norm",
    "variance_scaling_initializer", "xavier_initializer", "xavier_initializer_conv2d",
})
FRAMEWORK = frozenset({
    "VariableDeviceChooser", "add_arg_scope", "add_model_variable", "arg_scope", "arg_scope_func_key",
    "arg_scoped_arguments", "assert_global_step", "assert_or_get_global_step", "assign_from_checkpoint",
    "assign_from_checkpoint_fn", "assign_from_values", "assign_from_values_fn", "create_global_step",
    "current_arg_scope", "filter_variables", "get_global_step", "get_local_variables", "get_model_variables",
    "get_or_create_global_step", "get_trainable_variables", "get_unique_variable", "get_variable_full_name",
    "get_variables", "get_variables_by_name", "get_variables_by_suffix", "get_variables_to_restore",
    "global_variable", "has_arg_scope", "local_variable", "model_variable", "variable",
})
# tf.contrib.metrics' code: tf_slim.metrics (the streaming_* metrics taking predictions first, f1_score, ...)
METRICS = frozenset({
    "accuracy", "aggregate_metric_map", "aggregate_metrics", "auc_using_histogram", "auc_with_confidence_intervals",
    "cohen_kappa", "count", "f1_score", "precision_at_recall", "precision_recall_at_equal_thresholds",
    "recall_at_precision", "sparse_recall_at_top_k", "streaming_accuracy", "streaming_auc", "streaming_concat",
    "streaming_covariance", "streaming_curve_points", "streaming_dynamic_auc", "streaming_false_negative_rate",
    "streaming_false_negative_rate_at_thresholds", "streaming_false_negatives", "streaming_false_negatives_at_thresholds",
    "streaming_false_positive_rate", "streaming_false_positive_rate_at_thresholds", "streaming_false_positives",
    "streaming_false_positives_at_thresholds", "streaming_mean", "streaming_mean_absolute_error",
    "streaming_mean_cosine_distance", "streaming_mean_iou", "streaming_mean_relative_error",
    "streaming_mean_squared_error", "streaming_mean_tensor", "streaming_pearson_correlation",
    "streaming_percentage_less", "streaming_precision", "streaming_precision_at_thresholds", "streaming_recall",
    "streaming_recall_at_k", "streaming_recall_at_thresholds", "streaming_root_mean_squared_error",
    "streaming_sensitivity_at_specificity", "streaming_sparse_average_precision_at_k",
    "streaming_sparse_average_precision_at_top_k", "streaming_sparse_precision_at_k",
    "streaming_sparse_precision_at_top_k", "streaming_sparse_recall_at_k", "streaming_specificity_at_sensitivity",
    "streaming_true_negatives", "streaming_true_negatives_at_thresholds", "streaming_true_positives",
    "streaming_true_positives_at_thresholds",
})
# tf.contrib.losses' code (TensorFlow 1.x's first losses, logits first): tf_slim.losses, with its metric_learning
LOSSES = frozenset({
    "absolute_difference", "add_loss", "compute_weighted_loss", "cosine_distance", "get_losses",
    "get_regularization_losses", "get_total_loss", "hinge_loss", "log_loss", "mean_pairwise_squared_error",
    "mean_squared_error", "metric_learning", "sigmoid_cross_entropy", "softmax_cross_entropy",
    "sparse_softmax_cross_entropy",
})
SLIM = LAYERS | FRAMEWORK | frozenset({
    "arg_scope_lib", "bucketization_op", "data", "data_decoder", "data_provider", "dataset", "dataset_data_provider",
    "evaluation", "initializers", "layers", "learning", "losses", "metrics", "model_analyzer", "normalization",
    "optimizers", "parallel_reader", "prefetch_queue", "queues", "regularizers", "rev_block_lib", "summaries",
    "tfexample_decoder", "train_eval", "training", "utils",
})

# contrib module -> (where its code is now, the names it has there: tf-slim 1.1's, TensorFlow 2.21's; each also
# 1.15's tf.contrib's)
MOVED = {
    "layers": ("tf_slim", LAYERS),
    "framework": ("tf_slim", FRAMEWORK),
    "slim": ("tf_slim", SLIM),
    "metrics": ("tf_slim.metrics", METRICS),
    "losses": ("tf_slim.losses", LOSSES),
    "tpu": ("tensorflow.compat.v1.tpu", frozenset({
        "CrossShardOptimizer", "batch_parallel", "bfloat16_scope", "core", "cross_replica_sum", "initialize_system",
        "outside_compilation", "replicate", "rewrite", "shard", "shutdown_system",
    })),
    "cluster_resolver": ("tensorflow.compat.v1.distribute.cluster_resolver", frozenset({
        "ClusterResolver", "KubernetesClusterResolver", "SimpleClusterResolver", "SlurmClusterResolver",
        "TFConfigClusterResolver", "TPUClusterResolver", "UnionResolver",
    })),
    # TensorFlow 1.15's contrib.rnn re-exported the core cells, which TensorFlow 2 keeps as tf_keras's legacy cells
    # (tf.compat.v1.nn.rnn_cell: compat.tf1_programs.use_tf_keras makes them reachable)
    "rnn": ("tensorflow.compat.v1.nn.rnn_cell", frozenset({
        "BasicLSTMCell", "BasicRNNCell", "DeviceWrapper", "DropoutWrapper", "GRUCell", "LSTMCell", "LSTMStateTuple",
        "MultiRNNCell", "RNNCell", "ResidualWrapper",
    })),
    "data": ("tensorflow.compat.v1.data.experimental", frozenset({
        "AUTOTUNE", "Counter", "CsvDataset", "Reducer", "SqlDataset", "TFRecordWriter", "bucket_by_sequence_length",
        "choose_from_datasets", "copy_to_device", "dense_to_sparse_batch", "enumerate_dataset", "get_next_as_optional",
        "get_single_element", "group_by_reducer", "group_by_window", "ignore_errors", "make_saveable_from_iterator",
        "map_and_batch", "parallel_interleave", "parse_example_dataset", "prefetch_to_device", "rejection_resample",
        "sample_from_datasets", "scan", "shuffle_and_repeat", "unbatch", "unique",
    })),
}
# TensorFlow 2 has no HParams: compat.tf1_hparams holds TF 1.x's class (tf.contrib.training's only name with a home)
_HPARAMS = "estimator_migrate.compat.tf1_hparams"
MOVED["training"] = (_HPARAMS, frozenset({"HParams"}))
MOVED["training.python.training.hparam"] = (_HPARAMS, frozenset({"HParams", "parse_values"}))
# tf.contrib.framework.nest was tensorflow.python.util.nest, whose public functions are tf.nest's (its others, the
# `_up_to` and path variants, are not: a module using one keeps its TODO)
MOVED["framework.nest"] = ("tensorflow.nest", frozenset({
    "assert_same_structure", "flatten", "is_nested", "map_structure", "pack_sequence_as",
}))
# tf.contrib.lookup: core's tables under TF 1.x's names, and functions taking `mapping=` (compat.contrib_lookup)
MOVED["lookup"] = ("estimator_migrate.compat.contrib_lookup", frozenset({
    "FastHashSpec", "HashTable", "HasherSpec", "IdTableWithHashBuckets", "InitializableLookupTableBase",
    "KeyValueTensorInitializer", "LookupInterface", "MutableDenseHashTable", "MutableHashTable", "StrongHashSpec",
    "TableInitializerBase", "TextFileIdTableInitializer", "TextFileIndex", "TextFileInitializer",
    "TextFileStringTableInitializer", "index_table_from_file", "index_table_from_tensor", "index_to_string",
    "index_to_string_table_from_file", "index_to_string_table_from_tensor", "string_to_index",
    "string_to_index_table_from_file", "string_to_index_table_from_tensor",
}))
# tf.contrib.learn's text preprocessing (compat.contrib_learn: VocabularyProcessor's ids and pickles as TF 1.x's); its
# estimators and Experiment are codemods/guidance.py's
MOVED["learn"] = ("estimator_migrate.compat.contrib_learn", frozenset({"preprocessing"}))
# tf.contrib.learn's MNIST reader, which TF 1.x's tutorials imported as tensorflow.examples.tutorials.mnist.input_data
# (compat.tf1_mnist: the same files, splits and batches; codemods/rules/tutorial_datasets.py rewrites that spelling)
_MNIST = ("estimator_migrate.compat.tf1_mnist", frozenset({
    "read_data_sets", "DataSet", "extract_images", "extract_labels", "dense_to_one_hot", "load_mnist",
}))
MOVED["learn.datasets.mnist"] = MOVED["learn.python.learn.datasets.mnist"] = _MNIST
# tf.contrib.learn's dataset helpers: the quickstart's CSV loaders (compat.tf1_datasets, TF 1.x's code) and
# load_dataset("mnist"), TF 1.x's CNN tutorial's
MOVED["learn.datasets"] = ("estimator_migrate.compat.tf1_datasets", frozenset({"load_dataset"}))
MOVED["learn.datasets.base"] = MOVED["learn.python.learn.datasets.base"] = ("estimator_migrate.compat.tf1_datasets",
                                                                            frozenset({
    "Dataset", "Datasets", "load_csv_with_header", "load_csv_without_header", "maybe_download",
}))
# tf.contrib.predictor: a SavedModel's signature run in a session of its own (compat.contrib_predictor: the same
# loader; from_estimator through the migrated estimator's export)
MOVED["predictor"] = ("estimator_migrate.compat.contrib_predictor", frozenset({"from_estimator", "from_saved_model"}))
# tf.contrib.distribute's single-machine strategies (compat.contrib_distribute: one replica, as TF 1.x chose devices)
MOVED["distribute"] = ("estimator_migrate.compat.contrib_distribute", frozenset({"MirroredStrategy",
                                                                               "OneDeviceStrategy"}))
# tf.contrib.estimator's optimizer wrappers and one-device replicate_model_fn: compat.contrib_estimator holds TF 1.x's
# (its other names: other rules)
MOVED["estimator"] = ("estimator_migrate.compat.contrib_estimator",
                      frozenset({"clip_gradients_by_norm", "replicate_model_fn", "TowerOptimizer"}))
# tf.contrib.opt's most used TF1 optimizers (compat.contrib_opt: TF 1.x's algorithms; its others keep a TODO)
MOVED["opt"] = ("estimator_migrate.compat.contrib_opt", frozenset({
    "LazyAdamOptimizer", "AdamWOptimizer", "MomentumWOptimizer", "DecoupledWeightDecayExtension",
    "extend_with_decoupled_weight_decay",
}))
# tf.contrib.image's geometric transforms (compat.contrib_image: TensorFlow 2's kernel of the same op; its other
# functions keep a TODO)
MOVED["image"] = ("estimator_migrate.compat.contrib_image", frozenset({
    "rotate", "translate", "transform", "angles_to_projective_transforms", "translations_to_projective_transforms",
    "compose_transforms", "flat_transforms_to_matrices", "matrices_to_flat_transforms",
}))
# tf.contrib.util's tensor protos (TensorFlow Serving clients): core's functions, which TF 1.15's contrib re-exported
MOVED["util"] = ("tensorflow.compat.v1", frozenset({"make_tensor_proto", "make_ndarray"}))
# tf.contrib.crf's linear-chain CRF (compat.contrib_crf: the same functions and results, in plain TensorFlow ops)
MOVED["crf"] = ("estimator_migrate.compat.contrib_crf", frozenset({
    "crf_log_likelihood", "crf_sequence_score", "crf_log_norm", "crf_unary_score", "crf_binary_score", "crf_decode",
    "viterbi_decode",
}))
# Modules whose target TensorFlow loads lazily, deciding then between Keras 3 and tf_keras: their references are
# rewritten where they are used (reached after compat.tf1_programs.use_tf_keras ran), their imports are not (an import
# runs before the migrated code's own compat import, and would load Keras 3's, which has no such cells)
IMPORTED_AS_IS = frozenset({"rnn"})
# Names of a module kept elsewhere than the rest of it (each: where, which names): contrib.rnn's static RNNs,
# tf.compat.v1.nn's; its block LSTMs, compat.contrib_rnn's
ELSEWHERE = {"rnn": (
    ("tensorflow.compat.v1.nn", frozenset({"static_rnn", "static_bidirectional_rnn", "static_state_saving_rnn"})),
    ("estimator_migrate.compat.contrib_rnn", frozenset({"LSTMBlockFusedCell", "LSTMBlockCell", "TimeReversedFusedRNN"})),
)}
# tf.contrib.data's functions TensorFlow 2 has no twin of, given back by compat.contrib_data
CONTRIB_DATA = frozenset({"batch_and_drop_remainder", "padded_batch_and_drop_remainder"})
# Names of a moved module that another rule rewrites (or flags) at their use
HANDLED = {"tpu": frozenset({"TPUEstimator", "TPUEstimatorSpec", "RunConfig", "TPUConfig", "InputPipelineConfig"}),
           "data": CONTRIB_DATA}
