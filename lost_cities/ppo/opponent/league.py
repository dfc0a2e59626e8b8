"""``opponent=league``: self-play against a pool of snapshots (its own issue; not built yet)."""


class LeagueOpponent:
    def __init__(self, pool_size, snapshot_every_updates):
        self.pool_size, self.snapshot_every_updates = pool_size, snapshot_every_updates

    def build(self, env):
        raise NotImplementedError(
            "opponent=league is not built yet; use opponent=static (e.g. "
            "opponent.policies=[self] for pure self-play, or a mix such as [random,discard_only,self])"
        )
