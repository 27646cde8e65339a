"""The experiment schema (:mod:`.schema`), the table of flow options it takes its flow options
from (:mod:`.flow_options`), the checked YAML loader (:mod:`.yamlcheck`) and the checked ``flow``
and ``verify`` sections of an experiment file (:mod:`.sections`).

The bottom layer of aesdse: it imports nothing else of aesdse, so an experiment file can be
loaded and checked without the simulator or any tool.
"""
