// Package keval is the retrieval evaluation of knowledge search: a
// corpus of documentation about a fictional job scheduler (Gantry,
// testdata/corpus, 41 markdown files written for this set, several per
// topic so that they compete) and 64 questions with the files that answer
// them (testdata/questions.json). Half of the questions share their key
// words with the answer ("lexical"), half share no content word with it
// ("paraphrase", TestParaphraseQuestionsShareNoWord); even-numbered
// questions are the half fusion settings are chosen on, odd-numbered
// ones the half they are checked on. `contextd eval docs` asks the same
// questions of the context tools.
//
// The test uploads the corpus through the knowledge service of an engine
// with the built-in embedder and reports MRR@10 and recall@10 per mode.
// agree_test.go stores the corpus's paragraphs both as context entries and
// as knowledge documents and compares the two hybrid rankings under the
// same fusion.
package keval
