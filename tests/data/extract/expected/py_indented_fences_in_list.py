import httpx

def fetch(url):
    with httpx.Client(timeout=5) as client:
        return client.get(url).text
