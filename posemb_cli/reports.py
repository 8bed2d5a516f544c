"""The reports the Python API returns, one per command, each defined in its command's folder.

``to_dict()`` is exactly the command's ``--json`` document and ``to_json()`` its text;
``__rich__`` is exactly what the command prints in a terminal, so a report shows itself in
Jupyter (``_repr_mimebundle_``) and in ``rich.print``. ``plot()`` (inspect, compare, heads,
extend) draws the figure that ``--plot`` writes as a matplotlib ``Figure``; matplotlib is the
optional extra ``plot``.
"""

from __future__ import annotations

# The renderers and figures register themselves with their reports (``run.documents.shows``/``draws``): loaded
# here, every report the API returns shows itself and draws its figure. They import no torch.
from posemb_cli.commands.compare.report import CompareReport
from posemb_cli.commands.doctor import render as _doctor_view  # noqa: F401
from posemb_cli.commands.doctor.report import DoctorReport
from posemb_cli.commands.extend import plot as _extend_figure  # noqa: F401
from posemb_cli.commands.extend import render as _extend_view  # noqa: F401
from posemb_cli.commands.extend.report import ExtendReport
from posemb_cli.commands.heads import plot as _heads_figure  # noqa: F401
from posemb_cli.commands.heads import render as _heads_view  # noqa: F401
from posemb_cli.commands.heads.report import HeadsReport
from posemb_cli.commands.inspect.report import InspectReport
from posemb_cli.commands.order import render as _order_view  # noqa: F401
from posemb_cli.commands.order.report import OrderReport
from posemb_cli.commands.padding import render as _padding_view  # noqa: F401
from posemb_cli.commands.padding.report import PaddingReport
from posemb_cli.commands.precision import render as _precision_view  # noqa: F401
from posemb_cli.commands.precision.report import PrecisionReport

__all__ = ["CompareReport", "DoctorReport", "ExtendReport", "HeadsReport", "InspectReport", "OrderReport",
           "PaddingReport", "PrecisionReport"]
