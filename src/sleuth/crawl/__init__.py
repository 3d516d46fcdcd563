"""Map and crawl a site: scope, canonical URLs, sitemaps and feeds, a polite bounded
crawler whose frontier lives in the cache backend, and llms.txt/Markdown output.

Import the parts from their modules (``sleuth.crawl.run`` for the operations); this
package imports nothing itself, because the extractor reads ``sleuth.crawl.urls``.
"""
