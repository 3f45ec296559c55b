from solution import render_markdown

SAMPLE = """
Intro text.

```python
print("hi")
```
"""


def test_code_block_is_preserved():
    html = render_markdown(SAMPLE)
    assert "<pre><code" in html
    assert 'print("hi")' in html
