"""Jobs that outlive the request that started them: crawl jobs and what they send."""
