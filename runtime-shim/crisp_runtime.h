/* crisp_runtime.h - being written */
