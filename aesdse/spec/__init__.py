"""The experiment schema (:mod:`.schema`), the table of flow options it takes its flow options
from (:mod:`.flow_options`) and the checked YAML loader (:mod:`.yamlcheck`).

The bottom layer of aesdse: it imports nothing else of aesdse, so an experiment file can be
loaded and checked without the simulator or any tool.
"""
