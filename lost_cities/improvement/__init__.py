"""Self-improvement: search -> distill -> gate, iteration after iteration, unattended.

- :mod:`~lost_cities.improvement.labels`: self-play positions labelled by the search on the champion;
- :mod:`~lost_cities.improvement.dataset`: the label chunks on disk (resumable generation);
- :mod:`~lost_cities.improvement.distill`: the student fitted to the pooled labels;
- :mod:`~lost_cities.improvement.loop`: the phases, the gate and promotion;
- :mod:`~lost_cities.improvement.run_dir`: the run dir's files and their readers and writers;
- :mod:`~lost_cities.improvement.resolve`: a new run's config checked and resolved;
- :mod:`~lost_cities.improvement.resume`: starting or resuming a run dir;
- :mod:`~lost_cities.improvement.report`: the learning curve;
- :mod:`~lost_cities.improvement.config`: the schema of conf/improve.yaml.
"""
