"""The compiled parts, two loops of the typed reader of a kubectl List: its indentation
dropped before it is decoded (``gate/snapshot/_indentation.c``) and its pods counted by node
(``gate/snapshot/_pods.c``). Optional: without a C compiler the package installs and reads
the same snapshots, a List about a quarter slower."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "gate.snapshot._indentation",
            ["gate/snapshot/_indentation.c"],
            optional=True,
        ),
        Extension("gate.snapshot._pods", ["gate/snapshot/_pods.c"], optional=True),
    ]
)
