// Schema of onboarding drafts (dkg/graph/drafts.py). Drafts use their own labels (:DraftVersion, :DraftItem,
// :ReviewAction), which no clinician read path matches, so a draft is invisible until it is published.
CREATE CONSTRAINT draft_version_key IF NOT EXISTS FOR (d:DraftVersion) REQUIRE d.draft_uid IS UNIQUE;
CREATE CONSTRAINT draft_item_key IF NOT EXISTS FOR (i:DraftItem) REQUIRE i.draft_uid IS UNIQUE;
CREATE CONSTRAINT review_action_id IF NOT EXISTS FOR (a:ReviewAction) REQUIRE a.id IS UNIQUE;
CREATE INDEX review_action_version IF NOT EXISTS FOR (a:ReviewAction) ON (a.version_uid);
