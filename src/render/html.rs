//! Render stage, HTML preview: Markdown → a standalone page (work in progress).
