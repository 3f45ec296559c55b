import requests
from bs4 import BeautifulSoup

page = requests.get("https://example.com", timeout=10)
soup = BeautifulSoup(page.text, "html.parser")
print(soup.title.string)
