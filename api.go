package contextd

import "github.com/contextd/contextd/api"

// The request, response and value types of the tools are defined in
// package api, which the internal packages build directly; the names
// below are the same types, so code written against this package and
// code written against package api mix freely.

type (
	BatchItemResult             = api.BatchItemResult
	BatchResponse               = api.BatchResponse
	ChunkingStatus              = api.ChunkingStatus
	ClampedLimit                = api.ClampedLimit
	CompressionStatus           = api.CompressionStatus
	ConnectionMetrics           = api.ConnectionMetrics
	DeleteBatchRequest          = api.DeleteBatchRequest
	DeleteBatchResponse         = api.DeleteBatchResponse
	DeleteRequest               = api.DeleteRequest
	DeleteResponse              = api.DeleteResponse
	EntryView                   = api.EntryView
	FTSResult                   = api.FTSResult
	FTSScores                   = api.FTSScores
	FTSSearchRequest            = api.FTSSearchRequest
	FTSSearchResponse           = api.FTSSearchResponse
	FTSStatus                   = api.FTSStatus
	FeatureStatus               = api.FeatureStatus
	FusionStats                 = api.FusionStats
	GetRequest                  = api.GetRequest
	GrantView                   = api.GrantView
	GrepRequest                 = api.GrepRequest
	GrepResponse                = api.GrepResponse
	GrepRow                     = api.GrepRow
	HybridResult                = api.HybridResult
	HybridScores                = api.HybridScores
	HybridSearchRequest         = api.HybridSearchRequest
	HybridSearchResponse        = api.HybridSearchResponse
	HybridStats                 = api.HybridStats
	ImageInput                  = api.ImageInput
	ImageView                   = api.ImageView
	IndexTreeStatus             = api.IndexTreeStatus
	IngestStateEntry            = api.IngestStateEntry
	IngestStatePage             = api.IngestStatePage
	IngestStateRequest          = api.IngestStateRequest
	KnowledgeBulkDeleteRequest  = api.KnowledgeBulkDeleteRequest
	KnowledgeBulkDeleteResponse = api.KnowledgeBulkDeleteResponse
	KnowledgeBulkFile           = api.KnowledgeBulkFile
	KnowledgeBulkResult         = api.KnowledgeBulkResult
	KnowledgeBulkUploadRequest  = api.KnowledgeBulkUploadRequest
	KnowledgeBulkUploadResponse = api.KnowledgeBulkUploadResponse
	KnowledgeContainer          = api.KnowledgeContainer
	KnowledgeContainerRequest   = api.KnowledgeContainerRequest
	KnowledgeCreateRequest      = api.KnowledgeCreateRequest
	KnowledgeDocument           = api.KnowledgeDocument
	KnowledgeDocumentRequest    = api.KnowledgeDocumentRequest
	KnowledgeHit                = api.KnowledgeHit
	KnowledgeListFilesRequest   = api.KnowledgeListFilesRequest
	KnowledgeListing            = api.KnowledgeListing
	KnowledgeSearchRequest      = api.KnowledgeSearchRequest
	KnowledgeSearchResponse     = api.KnowledgeSearchResponse
	KnowledgeStats              = api.KnowledgeStats
	KnowledgeUploadRequest      = api.KnowledgeUploadRequest
	KnowledgeUploadResponse     = api.KnowledgeUploadResponse
	LegStats                    = api.LegStats
	ListGrantsRequest           = api.ListGrantsRequest
	ListGrantsResponse          = api.ListGrantsResponse
	ListThreadsRequest          = api.ListThreadsRequest
	ListThreadsResponse         = api.ListThreadsResponse
	NameCount                   = api.NameCount
	NavigateRequest             = api.NavigateRequest
	NavigateResponse            = api.NavigateResponse
	OutlineNode                 = api.OutlineNode
	Passage                     = api.Passage
	PlanSyncRequest             = api.PlanSyncRequest
	PlanSyncResponse            = api.PlanSyncResponse
	RankDepthLimit              = api.RankDepthLimit
	ReadRangeRequest            = api.ReadRangeRequest
	ReadRangeResponse           = api.ReadRangeResponse
	RerankingStatus             = api.RerankingStatus
	SearchFilter                = api.SearchFilter
	SearchRequest               = api.SearchRequest
	SearchResponse              = api.SearchResponse
	SearchStats                 = api.SearchStats
	SemanticFigures             = api.SemanticFigures
	SemanticResult              = api.SemanticResult
	SemanticScores              = api.SemanticScores
	SemanticSearchRequest       = api.SemanticSearchRequest
	SemanticSearchResponse      = api.SemanticSearchResponse
	SemanticStats               = api.SemanticStats
	SemanticStatus              = api.SemanticStatus
	ShareRequest                = api.ShareRequest
	ShareResponse               = api.ShareResponse
	Statistics                  = api.Statistics
	StoreBatchItem              = api.StoreBatchItem
	StoreBatchRequest           = api.StoreBatchRequest
	StoreRequest                = api.StoreRequest
	StoreResponse               = api.StoreResponse
	SummaryStatus               = api.SummaryStatus
	SyncDelete                  = api.SyncDelete
	SyncUpdate                  = api.SyncUpdate
	ThreadView                  = api.ThreadView
	UnshareResponse             = api.UnshareResponse
	UpdateBatchItem             = api.UpdateBatchItem
	UpdateBatchRequest          = api.UpdateBatchRequest
	UpdateRequest               = api.UpdateRequest
	UpdateResponse              = api.UpdateResponse
)

// The constants of the request and response values; see package api.
const (
	VisibilityPrivate = api.VisibilityPrivate
	VisibilityPublic  = api.VisibilityPublic

	GrepFilesWithMatches = api.GrepFilesWithMatches
	GrepContent          = api.GrepContent
	GrepCount            = api.GrepCount

	PrincipalUser   = api.PrincipalUser
	PrincipalGroup  = api.PrincipalGroup
	PermissionRead  = api.PermissionRead
	PermissionWrite = api.PermissionWrite

	KnowledgeSemantic    = api.KnowledgeSemantic
	KnowledgeKeyword     = api.KnowledgeKeyword
	KnowledgeHybrid      = api.KnowledgeHybrid
	KnowledgeDefaultTopK = api.KnowledgeDefaultTopK
	KnowledgeKindManaged = api.KnowledgeKindManaged
	KnowledgeKindSource  = api.KnowledgeKindSource
)
