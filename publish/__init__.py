"""Publishing the rendered lesson: a slide deck (``slides``) and a lesson web page (``page``)."""
