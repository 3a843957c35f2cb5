"""The one compiled part: a kubectl List's indentation dropped before it is decoded
(``gate/snapshot/_indentation.c``). Optional: without a C compiler the package installs
and reads the same snapshots, a List about a fifth slower."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "gate.snapshot._indentation",
            ["gate/snapshot/_indentation.c"],
            optional=True,
        )
    ]
)
