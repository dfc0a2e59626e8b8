"""``logger=none``: no W&B; the run dir's metrics.jsonl and plot remain."""


class NoneLogger:
    def start(self, run_dir, config, group, name, run_id):
        pass

    def log(self, row, step):
        pass

    def gates(self, results, step):
        pass

    def summary(self, values):
        pass

    def finish(self):
        pass
