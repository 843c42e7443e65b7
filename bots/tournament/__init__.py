"""Tournaments: many engine-only games between bots, seats rotated, every deal played from
every seat, records written durably, results with confidence intervals.

``schedule`` (who sits where, shards), ``play`` (one game), ``records`` (the JSON-lines file),
``run`` (playing the games left, in this process, worker processes or on a cluster), ``report``
(results from records), ``cluster`` (Dask, optional), ``version`` (which code is running).
"""

from bots.tournament.records import GameRecord, RecordsError, merge_records, read_records
from bots.tournament.report import TournamentResult, wilson_interval
from bots.tournament.run import run_tournament
from bots.tournament.schedule import ScheduleError, Settings, Shard, lineup, seating

__all__ = ["GameRecord", "RecordsError", "ScheduleError", "Settings", "Shard",
           "TournamentResult", "lineup", "merge_records", "read_records", "run_tournament",
           "seating", "wilson_interval"]
