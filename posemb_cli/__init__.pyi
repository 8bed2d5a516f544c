"""The names ``posemb_cli`` re-exports, typed for checkers (the module imports them lazily at run time)."""

from typing import Any

from posemb_cli.api import compare as compare
from posemb_cli.api import doctor as doctor
from posemb_cli.api import extend as extend
from posemb_cli.api import heads as heads
from posemb_cli.api import inspect as inspect
from posemb_cli.api import inspect_model as inspect_model
from posemb_cli.api import order as order
from posemb_cli.api import padding as padding
from posemb_cli.api import precision as precision
from posemb_cli.api import read_rope_config as read_rope_config
from posemb_cli.errors import PosembError as PosembError
from posemb_cli.reports import CompareReport as CompareReport
from posemb_cli.reports import DoctorReport as DoctorReport
from posemb_cli.reports import ExtendReport as ExtendReport
from posemb_cli.reports import HeadsReport as HeadsReport
from posemb_cli.reports import InspectReport as InspectReport
from posemb_cli.reports import OrderReport as OrderReport
from posemb_cli.reports import PaddingReport as PaddingReport
from posemb_cli.reports import PrecisionReport as PrecisionReport

__version__: str
__all__: list[str]

def __getattr__(name: str) -> Any: ...  # the building blocks, imported on first use
