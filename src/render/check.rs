//! Render stage, Markdown checks: well-formedness of generated Markdown (work in progress).
