"""`playbench report DIR... --site OUT`: a static leaderboard site (see `playbench.site.build`)."""

from playbench.site.build import MARKER, build_site, check_site_dir

__all__ = ["MARKER", "build_site", "check_site_dir"]
