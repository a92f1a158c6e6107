"""litsift: literature search and dataset recommendation in the terminal."""

import os

# ONNX Runtime 1.29+ sends usage telemetry from Linux and macOS too (DNS lookups of
# mobile.events.data.microsoft.com during `litsift index`, a device id written under
# ~/.cache/Microsoft). litsift runs offline: telemetry is off before onnxruntime starts, here,
# so every command, the app and the embedding worker processes inherit it. A value already in
# the environment is kept.
os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")

__version__ = "0.1.0"
