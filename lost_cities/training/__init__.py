"""A training run around PPO: the run dir, starting and resuming it, the loop with its
gates, checkpoints and guards, the pretrain run, the recipe chain, a best response to an
agent, and run reports.

| module      | contract                                                                      |
| ----------- | ----------------------------------------------------------------------------- |
| ``loop``    | ``train`` (to ``ppo.total_decisions``), ``run`` (``python -m lost_cities.train``) |
| ``resume``  | ``prepare_run_dir``: a new run's checks, or a resume's config and overrides    |
| ``guards``  | ``NonFiniteError``: nothing non-finite is written                              |
| ``run_dir`` | the files of a run dir and how they are read                                  |
| ``pretrain``| a cloned policy as a run dir (``python -m lost_cities.pretrain``)              |
| ``recipe``  | a chain of runs (``python -m lost_cities.recipe``)                             |
| ``exploit`` | a best response to a fixed agent, and what it wins (``python -m lost_cities.exploit``) |
| ``report``  | runs compared, a run's learning curve (``python -m lost_cities.report``)      |
"""
