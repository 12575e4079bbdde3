/* target.h - what the compilation target (OpenCL C 1.2, `oclc`) offers, in
 * one table shared by the reader's #+(target-has ...), the compile-time
 * evaluator's target-has and the checker's device-has. */
#ifndef CRISP_TARGET_H
#define CRISP_TARGET_H

/* 1 the target always has KEY, 0 never, -1 optional (the device decides),
   -2 unknown property. */
int target_property(const char *key);

/* The known properties, for messages. */
#define TARGET_PROPERTIES ":fp64 :fp16 :images :local-memory :atomics32 :subgroups"

#endif
