"""`<estimator>.experimental_export_all_saved_models(export_dir_base, input_receiver_fn_map)` -> kept, with a TODO.

The Estimator wrote one SavedModel holding a MetaGraph per mode of the map (serving, training, evaluation). A
migrated estimator is a Keras model, which has no such method and whose SavedModel serves only: the call would
stop the program. What replaces it is the serving export (estimator_training.export_saved_model with the map's
PREDICT receiver); training and evaluation graphs have no TensorFlow 2 counterpart. The method's name is the
Estimator's alone, so any receiver's call is taken for one in a module naming TensorFlow.
"""

import libcst as cst

from codemods.registry import Rule, register

METHOD = "experimental_export_all_saved_models"


@register
class ExportAllSavedModelsRule(Rule):
    rule_id = "export-all-saved-models"
    node_types = (cst.Call,)

    def leave(self, original: cst.Call, updated: cst.Call, ctx):
        if not (isinstance(original.func, cst.Attribute) and original.func.attr.value == METHOD) \
                or not ctx.mentions("tensorflow"):
            return updated
        ctx.todo(original, self.rule_id,
                 f"{METHOD}: not migrated (a migrated estimator is a Keras model, whose SavedModel serves only): export "
                 "the serving signature with estimator_training.export_saved_model(model, export_dir_base, <the map's "
                 "PREDICT receiver>); the TRAIN and EVAL MetaGraphs have no TensorFlow 2 counterpart")
        return updated
