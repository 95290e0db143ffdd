"""The claims of the ood_checks chapter, registered before the fresh runs that judge them."""
from __future__ import annotations

from swingby.verdicts import Claim

#: the chapter's registered claims, in the order of the chapter
CLAIMS: tuple[Claim, ...] = ()
