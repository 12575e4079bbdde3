# crisp_runtime.py - being written
