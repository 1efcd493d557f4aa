"""TensorFlow's private canned head module (`tensorflow_estimator.python.estimator.canned.head`, which TensorFlow
1.x also exported as `tensorflow.python.estimator.canned.head`), as programs that copied a canned estimator's
model_fn imported it (`from tensorflow.python.estimator.canned import head as head_lib`): its head constructors,
building TensorFlow 1.x's heads (compat.estimator_heads, v1), their loss summed over the batch unless given
(`head_lib`'s own default). The rewrite imports this module in the import's place only where the program uses no
other name of it.
"""

from __future__ import annotations

from .estimator_heads import BinaryClassHead, LossSpec, MultiClassHead, RegressionHead

SUM = "weighted_sum"
# (the names codemods/rules/estimator_imports.py lets a program read of it)
__all__ = ["LossSpec", "_binary_logistic_head_with_sigmoid_cross_entropy_loss", "_binary_logistic_or_multi_class_head",
           "_multi_class_head_with_softmax_cross_entropy_loss", "_regression_head"]


def _binary_logistic_head_with_sigmoid_cross_entropy_loss(weight_column=None, thresholds=None, label_vocabulary=None,
                                                          loss_reduction=SUM, loss_fn=None, name=None):
    return BinaryClassHead(weight_column, thresholds, label_vocabulary, loss_reduction, loss_fn, name, v1=True)


def _multi_class_head_with_softmax_cross_entropy_loss(n_classes, weight_column=None, label_vocabulary=None,
                                                      loss_reduction=SUM, loss_fn=None, name=None):
    return MultiClassHead(n_classes, weight_column, label_vocabulary, loss_reduction, loss_fn, name, v1=True)


def _regression_head(weight_column=None, label_dimension=1, loss_reduction=SUM, loss_fn=None, inverse_link_fn=None,
                     name=None):
    return RegressionHead(label_dimension, weight_column, loss_reduction, loss_fn, inverse_link_fn, name, v1=True)


def _binary_logistic_or_multi_class_head(n_classes, weight_column, label_vocabulary, loss_reduction):
    """The head of TensorFlow 1.x's canned classifiers: binary for two classes, multi-class otherwise."""
    if n_classes == 2:
        return _binary_logistic_head_with_sigmoid_cross_entropy_loss(
            weight_column=weight_column, label_vocabulary=label_vocabulary, loss_reduction=loss_reduction)
    return _multi_class_head_with_softmax_cross_entropy_loss(
        n_classes=n_classes, weight_column=weight_column, label_vocabulary=label_vocabulary,
        loss_reduction=loss_reduction)

