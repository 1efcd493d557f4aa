"""Execute a notebook top to bottom with this interpreter's environment, in a working directory.

    <env>/bin/python tests/run_notebook.py NOTEBOOK.ipynb WORK_DIR

Run by tests/test_tutorials.py with the Python of the environment the notebook names (legacy or modern);
the executed notebook is not written back, so outputs never reach the repository.
"""

import sys

import nbformat
from nbclient import NotebookClient

notebook = nbformat.read(sys.argv[1], as_version=4)
client = NotebookClient(
    notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": sys.argv[2]}}
)
client.execute(env={"TF_CPP_MIN_LOG_LEVEL": "2"})
