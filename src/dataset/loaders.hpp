#pragma once
// One loader per dataset (one file each); load_dataset() in dataset.cpp dispatches and times them.
#include "dataset/dataset.hpp"

namespace sb::dataset {

Dataset load_random(const DatasetConfig& cfg, const Tokenizer* tokenizer);   // random_dataset.cpp
Dataset load_random_words(const DatasetConfig& cfg);                         // random_words.cpp
Dataset load_sharegpt(const DatasetConfig& cfg, const Tokenizer* tokenizer); // sharegpt_dataset.cpp
Dataset load_custom(const DatasetConfig& cfg, const Tokenizer* tokenizer);   // custom_dataset.cpp

}  // namespace sb::dataset
