"""``logger=wandb``: one W&B run per training run, written inside the run dir.

Offline by default (``wandb sync <run dir>/wandb/offline-run-*`` uploads later); runs
are grouped by experiment or by sweep, and a resumed run continues the same W&B run id.
"""

import math


class WandbLogger:
    def __init__(self, project, entity=None, mode="offline", tags=()):
        self.project, self.entity, self.mode, self.tags = project, entity, mode, list(tags)
        self.run = None

    def start(self, run_dir, config, group, name, run_id):
        import wandb

        self.run = wandb.init(
            project=self.project,
            entity=self.entity,
            mode=self.mode,
            tags=self.tags,
            dir=str(run_dir),
            config=config,
            group=group,
            name=name,
            id=run_id,
            resume="allow",
            reinit="create_new",  # a run inside another's process (the loop's exploiters) gets its own
            settings=wandb.Settings(console="off", silent=True),
        )

    def log(self, row, step):
        self.run.log(
            {k: v for k, v in row.items() if isinstance(v, int | float) and math.isfinite(v)}, step=step
        )

    def gates(self, results, step):
        """A table of the gate results and a bar chart of their win rates, at ``step``."""
        import wandb

        metrics = ["win_rate", "win_rate_lower", "win_rate_upper", "margin_mean", "passed"]
        columns = ["gate", "opponent", *metrics]
        rows = [[name, r["opponent"], *(r[m] for m in metrics)] for name, r in results.items()]
        table = wandb.Table(columns=columns, data=rows)
        chart = wandb.plot.bar(table, "gate", "win_rate", title="gate win rates")
        self.run.log({"gates/table": table, "gates/win_rate_bars": chart}, step=step)

    def summary(self, values):
        self.run.summary.update(values)

    def finish(self):
        self.run.finish()
