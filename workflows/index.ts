/** Every workflow the worker runs; one workflow per file (DESIGN.md "Layout"). */
export {};
