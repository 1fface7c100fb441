"""tarn: a lakehouse catalog, embedded or remote (docs/design/python.md).

    import tarn
    client = tarn.connect("/data/tarn")                      # embedded
    client = tarn.connect("http://127.0.0.1:8181", client_id=..., client_secret=...)
    ds = client.load_dataset("acme.sales.orders")
    df = ds.scan(where="region = 'EU'").to_pandas()
"""

from __future__ import annotations

from . import errors
from ._client import Client, connect
from ._dataset import Dataset
from ._scan import ScanResult
from ._upload import Contract, Issue, PlanEntry, Schema, Target
from ._util import Record
from .errors import TarnError

__all__ = ["connect", "Client", "Dataset", "ScanResult", "Record", "TarnError", "errors",
           "Target", "Schema", "Contract", "PlanEntry", "Issue"]
