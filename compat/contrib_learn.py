"""tf.contrib.learn's text preprocessing as TensorFlow 1.x had it (`learn.preprocessing.VocabularyProcessor`), for
programs that use nothing else of tf.contrib.learn: text classifiers fitting a vocabulary, feeding its word ids to a
graph, and saving it beside their checkpoints (dennybritz/cnn-text-classification-tf and its many forks;
codemods/rules/contrib_modules.py rewrites `learn` to this module when `preprocessing` is all a program reaches).

The ids are TensorFlow 1.x's: words get ids in the order they are first met (0 is the unknown word and the padding),
`min_frequency` keeps the words seen more often, renumbered by descending count then alphabetically; a document
becomes `max_document_length` ids, cut or padded with 0. `save` pickles the processor; `restore` reads those files
and the ones TensorFlow 1.x wrote (their pickles name tf.contrib.learn's classes: they are read as these, whose
attributes are the same).
"""

from __future__ import annotations

import collections
import io
import pickle
import re
import types

import numpy as np
import tensorflow as tf

TOKENIZER_RE = re.compile(r"[A-Z]{2,}(?![a-z])|[A-Z][a-z]+(?=[A-Z])|[\'\w\-]+", re.UNICODE)


def tokenizer(iterator):
    """Each document's tokens: runs of capitals, capitalized words before a capital, words with ' and -."""
    for value in iterator:
        yield TOKENIZER_RE.findall(value)


class CategoricalVocabulary:
    """Categories (words) -> ids from 1 in the order they are first met; 0 the unknown token."""

    def __init__(self, unknown_token="<UNK>", support_reverse=True):
        self._unknown_token = unknown_token
        self._mapping = {unknown_token: 0}
        self._support_reverse = support_reverse
        if support_reverse:
            self._reverse_mapping = [unknown_token]
        self._freq = collections.defaultdict(int)
        self._freeze = False

    def __len__(self):
        return len(self._mapping)

    def freeze(self, freeze=True):
        """Frozen, a new category gets the unknown token's id."""
        self._freeze = freeze

    def get(self, category):
        """The category's id, made when it is new and the vocabulary is not frozen."""
        if category not in self._mapping:
            if self._freeze:
                return 0
            self._mapping[category] = len(self._mapping)
            if self._support_reverse:
                self._reverse_mapping.append(category)
        return self._mapping[category]

    def add(self, category, count=1):
        """Counts `count` more of the category (given its id first, as `get` does)."""
        if self.get(category) <= 0:
            return
        self._freq[category] += count

    def trim(self, min_frequency, max_frequency=-1):
        """Keeps the categories counted more than `min_frequency` times (and less than `max_frequency`, when given),
        their ids from 1 by descending count, ties alphabetical."""
        ranked = sorted(sorted(self._freq.items(), key=lambda item: (isinstance(item[0], str), item[0])),
                        key=lambda item: item[1], reverse=True)
        self._mapping = {self._unknown_token: 0}
        if self._support_reverse:
            self._reverse_mapping = [self._unknown_token]
        next_id = 1
        for category, count in ranked:
            if max_frequency > 0 and count >= max_frequency:
                continue
            if count <= min_frequency:
                break
            self._mapping[category] = next_id
            next_id += 1
            if self._support_reverse:
                self._reverse_mapping.append(category)
        self._freq = dict(ranked[:next_id - 1])

    def reverse(self, class_id):
        """The category of an id."""
        if not self._support_reverse:
            raise ValueError("This vocabulary wasn't initalized with support_reverse to support reverse() function.")
        return self._reverse_mapping[class_id]


class ByteProcessor:
    """Documents as `max_document_length` utf-8 byte ids, cut or padded with 0."""

    def __init__(self, max_document_length):
        self.max_document_length = max_document_length

    def fit(self, x):
        """Nothing to learn."""

    def fit_transform(self, x):
        return self.transform(x)

    def reverse(self, x):
        """The documents of byte-id rows (trailing zeros dropped; '' where they are not utf-8)."""
        for data in x:
            document = np.trim_zeros(data.astype(np.int8), trim="b").tobytes()
            try:
                yield document.decode("utf-8")
            except UnicodeDecodeError:
                yield ""

    def transform(self, x):
        """Each document's first `max_document_length` utf-8 bytes, padded with 0."""
        for document in x:
            if isinstance(document, str):
                document = document.encode("utf-8")
            ids = np.frombuffer(memoryview(document)[:self.max_document_length], dtype=np.uint8)
            yield np.pad(ids, (0, self.max_document_length - len(ids)), "constant")


class VocabularyProcessor:
    """Documents -> rows of `max_document_length` word ids (see the module)."""

    def __init__(self, max_document_length, min_frequency=0, vocabulary=None, tokenizer_fn=None):
        self.max_document_length = max_document_length
        self.min_frequency = min_frequency
        self.vocabulary_ = vocabulary if vocabulary else CategoricalVocabulary()
        self._tokenizer = tokenizer_fn if tokenizer_fn else tokenizer

    def fit(self, raw_documents, unused_y=None):
        """Learns the vocabulary of the documents' tokens (trimmed by min_frequency), then freezes it."""
        for tokens in self._tokenizer(raw_documents):
            for token in tokens:
                self.vocabulary_.add(token)
        if self.min_frequency > 0:
            self.vocabulary_.trim(self.min_frequency)
        self.vocabulary_.freeze()
        return self

    def fit_transform(self, raw_documents, unused_y=None):
        """`fit`, then `transform` of the same documents."""
        self.fit(raw_documents)
        return self.transform(raw_documents)

    def transform(self, raw_documents):
        """Yields each document's row of word ids (int64), cut at max_document_length, padded with 0."""
        for tokens in self._tokenizer(raw_documents):
            word_ids = np.zeros(self.max_document_length, np.int64)
            for index, token in enumerate(tokens):
                if index >= self.max_document_length:
                    break
                word_ids[index] = self.vocabulary_.get(token)
            yield word_ids

    def reverse(self, documents):
        """Yields each row of ids as its words joined by spaces."""
        for item in documents:
            yield " ".join(self.vocabulary_.reverse(class_id) for class_id in item)

    def save(self, filename):
        """Pickles the processor into `filename` (any tf.io.gfile path)."""
        with tf.io.gfile.GFile(filename, "wb") as out:
            out.write(pickle.dumps(self))

    @classmethod
    def restore(cls, filename):
        """The processor pickled in `filename`, by this module's `save` or TensorFlow 1.x's."""
        with tf.io.gfile.GFile(filename, "rb") as saved:
            return _Unpickler(io.BytesIO(saved.read())).load()


# Where TensorFlow 1.x's pickles name the classes and the default tokenizer
_TF1_MODULES = ("tensorflow.contrib.learn.python.learn.preprocessing.text",
                "tensorflow.contrib.learn.python.learn.preprocessing.categorical_vocabulary")


class _Unpickler(pickle.Unpickler):
    def find_class(self, module, name):
        if module in _TF1_MODULES and name in ("VocabularyProcessor", "CategoricalVocabulary", "ByteProcessor",
                                               "tokenizer"):
            return globals()[name]
        return super().find_class(module, name)


# `learn.preprocessing.<name>`, as programs reach them from `from tensorflow.contrib import learn`
preprocessing = types.SimpleNamespace(
    VocabularyProcessor=VocabularyProcessor, CategoricalVocabulary=CategoricalVocabulary, ByteProcessor=ByteProcessor,
    tokenizer=tokenizer,
)
